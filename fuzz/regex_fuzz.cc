// libFuzzer target for RegexToExpr: any bytes as a pattern must give an
// expression or INVALID_ARGUMENT, never a crash, and a pattern's grammar
// must build (or be refused) and run without looping.
//
// Input: the pattern, then optionally 0xFF (a byte UTF-8 never uses) and
// steering bytes for the two walks of matcher_walks.h over the pattern's
// grammar, which also check that what was accepted is the start of valid
// UTF-8 (every regex matches code points), complete whenever the matcher
// accepts.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "matcher_walks.h"
#include "pagoda/structured/grammar_builder.h"
#include "pagoda/structured/regex_to_expr.h"

namespace {

using pagoda::structured::Grammar;
using pagoda::structured::GrammarBuilder;
using pagoda::structured::GrammarLimits;
using pagoda::structured::RegexLimits;
using pagoda::structured::fuzz::Fail;

// Small enough limits that one input runs in milliseconds.
constexpr int kMaxRepeat = 64;
constexpr size_t kMaxSymbols = size_t{1} << 16;
constexpr size_t kMaxTextBytes = 64;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t separator = input.find('\xFF');
  const std::string_view pattern = input.substr(0, separator);
  const std::string_view text = separator == std::string_view::npos ? "" : input.substr(separator + 1);

  RegexLimits limits;
  limits.max_repeat = kMaxRepeat;
  const auto expr = pagoda::structured::RegexToExpr(pattern, limits);
  if (!expr.ok()) {
    if (expr.status().code() != pagoda::StatusCode::kInvalidArgument) {
      Fail("a refusal that is not INVALID_ARGUMENT", pattern);
    }
    return 0;
  }
  GrammarBuilder builder;
  builder.Define("root", *expr);
  GrammarLimits grammar_limits;
  grammar_limits.max_symbols = kMaxSymbols;
  auto grammar = builder.Build("root", grammar_limits);
  if (!grammar.ok()) return 0;  // too large for these limits
  // Every regex matches code points: what a matcher takes is UTF-8.
  const auto built = std::make_shared<const Grammar>(std::move(*grammar));
  const std::string_view steering = text.substr(0, kMaxTextBytes);
  pagoda::structured::fuzz::FeedAsGiven(built, steering, pagoda::structured::fuzz::CheckUtf8Text);
  pagoda::structured::fuzz::WalkAllowed(built, steering, pagoda::structured::fuzz::CheckUtf8Text);
  return 0;
}
