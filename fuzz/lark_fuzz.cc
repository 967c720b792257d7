// libFuzzer target for GrammarFromText (structured/grammar_text.h), and so
// for LarkToGrammar (structured/lark.h) on Lark text, and a matcher over
// what it builds.
//
// Input: the grammar text, then (after the first NUL byte, if any) steering
// bytes. A refusal must be INVALID_ARGUMENT naming "lark: line L, column C"
// for text read as Lark ("ebnf: line L, column C" for GBNF). A grammar that
// builds is walked as in ebnf_fuzz: the steering bytes fed as they are (a
// byte is accepted exactly when NextBytes holds it, and the accepted prefix
// is accepted again after rolling back to the start), then the (b mod n)-th
// allowed byte taken for each steering byte b.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "pagoda/structured/grammar_matcher.h"
#include "pagoda/structured/grammar_text.h"
#include "pagoda/structured/lark.h"

namespace {

using pagoda::StatusCode;
using pagoda::structured::ByteSet;
using pagoda::structured::DetectGrammarDialect;
using pagoda::structured::Grammar;
using pagoda::structured::GrammarDialect;
using pagoda::structured::GrammarFromText;
using pagoda::structured::GrammarMatcher;
using pagoda::structured::LarkOptions;
using pagoda::structured::LarkToGrammar;

void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "lark_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

// Fewer parse stacks than the engine's 4,096 keep each step short; the
// overflow path is exercised all the same.
constexpr size_t kMaxStacks = 256;

// The n-th byte of `set`, n < set.Count().
uint8_t NthByte(const ByteSet& set, int n) {
  for (int b = 0; b < 256; ++b) {
    if (set.Contains(static_cast<uint8_t>(b)) && n-- == 0) return static_cast<uint8_t>(b);
  }
  Fail("NthByte", "past the set");
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view text = input.substr(0, nul);
  const std::string_view steering = nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1);

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

  GrammarMatcher matcher(grammar, kMaxStacks);
  std::string accepted;
  for (const char c : steering) {
    const auto byte = static_cast<uint8_t>(c);
    const bool allowed = matcher.NextBytes().Contains(byte);
    if (matcher.AcceptByte(byte) != allowed && !matcher.Overflowed()) {
      Fail("AcceptByte disagrees with NextBytes", std::to_string(byte));
    }
    if (allowed) accepted.push_back(c);
  }
  const bool accepting = matcher.IsAccepting();
  if (!matcher.Overflowed()) {
    matcher.RollbackTo(0);
    if (!matcher.AcceptBytes(accepted) || matcher.IsAccepting() != accepting) Fail("replay after rollback", accepted);
  }

  GrammarMatcher walker(grammar, kMaxStacks);
  for (const char c : steering) {
    const ByteSet next = walker.NextBytes();
    if (next.Empty() || walker.Overflowed()) break;
    const uint8_t byte = NthByte(next, static_cast<uint8_t>(c) % next.Count());
    // Refused only when this step overflowed (a grammar too ambiguous to follow).
    if (!walker.AcceptByte(byte) && !walker.Overflowed()) Fail("a byte from NextBytes refused", std::to_string(byte));
  }
  return 0;
}
