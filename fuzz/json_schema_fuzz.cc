// libFuzzer target for JsonSchemaToGrammar (structured/json_schema_to_grammar.h)
// and a matcher over what it builds.
//
// Input: the schema text, then (after the first NUL byte, if any) steering
// bytes. Any schema text must give a grammar or INVALID_ARGUMENT from the
// converter or the grammar limits, never a crash or a hang. A grammar that builds is walked
// twice with a GrammarMatcher, as in ebnf_fuzz: once feeding the steering
// bytes as they are (a byte is accepted exactly when NextBytes holds it,
// and after rolling back to the start the accepted prefix reaches the same
// verdict again), once taking the (b mod n)-th allowed byte for each
// steering byte b, so that walks reach deep into the schema's grammar.
// Whenever a walk's bytes are a whole sentence, they are JSON (nlohmann's
// parser accepts them). The first steering byte picks the layout (compact,
// spaced separators, or bounded whitespace) and strict mode.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "matcher_walks.h"
#include "pagoda/structured/json_schema_to_grammar.h"

namespace {

using pagoda::StatusCode;
using pagoda::structured::Grammar;
using pagoda::structured::JsonSchemaOptions;
using pagoda::structured::JsonSchemaToGrammar;
using pagoda::structured::fuzz::Fail;

// `text` is JSON; numbers beyond a double's range (1e999) count as JSON,
// though nlohmann's parser refuses them.
bool IsJson(const std::string& text) {
  try {
    (void)nlohmann::json::parse(text);
    return true;
  } catch (const nlohmann::json::exception& e) {
    return e.id == 406;  // out_of_range.406: number overflow
  }
}

JsonSchemaOptions OptionsFrom(std::string_view steering) {
  JsonSchemaOptions options;
  options.limits.max_symbols = size_t{1} << 16;  // keeps each run short
  options.max_depth = 32;
  const uint8_t pick = steering.empty() ? 0 : static_cast<uint8_t>(steering[0]);
  switch (pick % 3) {
    case 0:
      options.max_whitespace = 0;
      break;
    case 1:
      options.max_whitespace = 0;
      options.item_separator = ", ";
      options.key_separator = ": ";
      break;
    default:
      options.max_whitespace = 2;
      break;
  }
  options.strict = (pick & 0x80) == 0;
  return options;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view text = input.substr(0, nul);
  const std::string_view steering = nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1);

  auto built = JsonSchemaToGrammar(text, OptionsFrom(steering));
  if (!built.ok()) {
    if (built.status().code() != StatusCode::kInvalidArgument) Fail("not INVALID_ARGUMENT", built.status().ToString());
    // The converter's refusals, or the grammar limits (size, nesting).
    const std::string_view message = built.status().message();
    if (!message.starts_with("JSON schema") && !message.starts_with("grammar: too large") &&
        !message.starts_with("grammar: expressions nested")) {
      Fail("unexpected refusal", built.status().ToString());
    }
    return 0;
  }
  const auto grammar = std::make_shared<const Grammar>(std::move(*built));
  const auto fed = pagoda::structured::fuzz::FeedAsGiven(grammar, steering);
  if (fed.accepting && !IsJson(fed.text)) Fail("a sentence that is not JSON", fed.text);
  const auto walked = pagoda::structured::fuzz::WalkAllowed(grammar, steering);
  if (walked.accepting && !IsJson(walked.text)) Fail("a walked sentence that is not JSON", walked.text);
  return 0;
}
