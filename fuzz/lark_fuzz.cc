// libFuzzer target for GrammarFromText (structured/grammar_text.h), and so
// for LarkToGrammar (structured/lark.h) on Lark text, and a matcher over
// what it builds.
//
// Input: the grammar text, then optionally 0xFF (a byte UTF-8 never uses,
// so no grammar text needs it) and steering bytes. A refusal must be
// INVALID_ARGUMENT naming "lark: line L, column C" for text read as Lark
// ("ebnf: line L, column C" for GBNF), in bounded time and stack (libFuzzer
// and ASan catch the rest). A grammar that builds is walked twice: the
// steering bytes fed as they are (a byte is accepted exactly when NextBytes
// holds it; what a Lark grammar accepts is UTF-8, complete whenever the
// matcher accepts; the accepted prefix gets the same verdict again after
// rolling back to the start), then the (b mod n)-th allowed byte taken for
// each steering byte b.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "matcher_walks.h"
#include "pagoda/structured/grammar_text.h"
#include "pagoda/structured/lark.h"

namespace {

using pagoda::StatusCode;
using pagoda::structured::DetectGrammarDialect;
using pagoda::structured::Grammar;
using pagoda::structured::GrammarDialect;
using pagoda::structured::GrammarFromText;
using pagoda::structured::LarkOptions;
using pagoda::structured::LarkToGrammar;
using pagoda::structured::fuzz::Fail;

constexpr size_t kMaxSteeringBytes = 256;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t separator = input.find('\xFF');
  const std::string_view text = input.substr(0, separator);
  const std::string_view steering =
      separator == std::string_view::npos ? std::string_view() : input.substr(separator + 1, kMaxSteeringBytes);

  const bool lark = DetectGrammarDialect(text) == GrammarDialect::kLark;
  // GrammarFromText's default limits could make one input slow; the Lark
  // path is taken with smaller ones, the GBNF path as the engine takes it.
  LarkOptions options;
  options.limits.max_symbols = size_t{1} << 16;
  options.max_repeat = 1000;
  auto built = lark ? LarkToGrammar(text, options) : GrammarFromText(text);
  if (!built.ok()) {
    if (built.status().code() != StatusCode::kInvalidArgument) Fail("not INVALID_ARGUMENT", built.status().ToString());
    const char* prefix = lark ? "lark: line " : "ebnf: line ";
    if (!built.status().message().starts_with(prefix)) Fail("no line:column", built.status().message());
    return 0;
  }
  const auto grammar = std::make_shared<const Grammar>(std::move(*built));
  // A Lark grammar matches code points: what a matcher takes is UTF-8.
  const pagoda::structured::fuzz::TextCheck check =
      lark ? pagoda::structured::fuzz::TextCheck(pagoda::structured::fuzz::CheckUtf8Text) : nullptr;
  pagoda::structured::fuzz::FeedAsGiven(grammar, steering, check);
  pagoda::structured::fuzz::WalkAllowed(grammar, steering, check);
  return 0;
}
