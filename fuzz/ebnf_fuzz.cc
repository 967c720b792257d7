// libFuzzer target for EbnfToGrammar (structured/ebnf.h) and a matcher over
// what it builds.
//
// Input: the grammar text, then (after the first NUL byte, if any) steering
// bytes. A refusal must be INVALID_ARGUMENT naming "ebnf: line L, column C".
// A grammar that builds is walked twice with a GrammarMatcher: once feeding
// the steering bytes as they are (a byte is accepted exactly when NextBytes
// holds it), once taking the (b mod n)-th allowed byte for each steering
// byte b, so that walks reach deep into the grammar; after rolling back to
// the start, the first walk's accepted prefix is accepted again.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "matcher_walks.h"
#include "pagoda/structured/ebnf.h"

namespace {

using pagoda::StatusCode;
using pagoda::structured::EbnfOptions;
using pagoda::structured::EbnfToGrammar;
using pagoda::structured::Grammar;
using pagoda::structured::fuzz::Fail;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view text = input.substr(0, nul);
  const std::string_view steering = nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1);

  EbnfOptions options;
  options.limits.max_symbols = size_t{1} << 16;  // keeps each run short
  auto built = EbnfToGrammar(text, options);
  if (!built.ok()) {
    if (built.status().code() != StatusCode::kInvalidArgument) Fail("not INVALID_ARGUMENT", built.status().ToString());
    if (!built.status().message().starts_with("ebnf: line ")) Fail("no line:column", built.status().message());
    return 0;
  }
  const auto grammar = std::make_shared<const Grammar>(std::move(*built));
  pagoda::structured::fuzz::FeedAsGiven(grammar, steering);
  pagoda::structured::fuzz::WalkAllowed(grammar, steering);
  return 0;
}
