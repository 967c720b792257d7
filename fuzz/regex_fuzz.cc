// libFuzzer target for RegexToExpr: any bytes as a pattern must give an
// expression or INVALID_ARGUMENT, never a crash, and a pattern's grammar
// must build (or be refused) and run without looping.
//
// Input: the pattern, then optionally 0xFF (a byte UTF-8 never uses) and
// bytes fed to a matcher of the pattern's grammar. Checked while feeding
// (up to a step that overflows the matcher's stacks, where a grammar too
// ambiguous to follow stops): a byte is accepted exactly when NextBytes
// holds it, what was accepted is the start of valid UTF-8 (every regex
// matches code points), complete UTF-8 whenever the matcher accepts, and
// rolling back and feeding the same bytes again reaches the same verdict.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "pagoda/structured/grammar_builder.h"
#include "pagoda/structured/grammar_matcher.h"
#include "pagoda/structured/regex_to_expr.h"

namespace {

using pagoda::structured::Grammar;
using pagoda::structured::GrammarBuilder;
using pagoda::structured::GrammarLimits;
using pagoda::structured::GrammarMatcher;
using pagoda::structured::RegexLimits;

// Small enough limits that one input runs in milliseconds.
constexpr int kMaxRepeat = 64;
constexpr size_t kMaxSymbols = size_t{1} << 16;
constexpr size_t kMaxTextBytes = 64;

enum class Utf8 { kInvalid, kIncomplete, kComplete };

// Whether `text` is UTF-8 (no overlong forms, no surrogates), or a prefix of
// it that stops inside the last code point.
Utf8 CheckUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const auto lead = static_cast<uint8_t>(text[i]);
    size_t length = 1;
    uint8_t low = 0x80, high = 0xBF;  // the second byte's range
    if (lead < 0x80) {
      ++i;
      continue;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      return Utf8::kInvalid;
    }
    for (size_t k = 1; k < length; ++k) {
      if (i + k == text.size()) return Utf8::kIncomplete;
      const auto byte = static_cast<uint8_t>(text[i + k]);
      if (k == 1 ? (byte < low || byte > high) : (byte < 0x80 || byte > 0xBF)) return Utf8::kInvalid;
    }
    i += length;
  }
  return Utf8::kComplete;
}

[[noreturn]] void Fail(const char* what, std::string_view pattern, std::string_view text) {
  std::fprintf(stderr, "regex_fuzz: %s\n  pattern: %.*s\n  text (%zu bytes): %.*s\n", what,
               static_cast<int>(pattern.size()), pattern.data(), text.size(), static_cast<int>(text.size()),
               text.data());
  __builtin_trap();
}

void RunMatcher(std::shared_ptr<const Grammar> grammar, std::string_view pattern, std::string_view text) {
  GrammarMatcher matcher(std::move(grammar));
  std::string accepted;
  for (const char c : text.substr(0, kMaxTextBytes)) {
    const auto byte = static_cast<uint8_t>(c);
    const bool allowed = matcher.NextBytes().Contains(byte);
    const bool took = matcher.AcceptByte(byte);
    if (matcher.Overflowed()) break;  // refused on purpose, whatever NextBytes says
    if (took != allowed) Fail("AcceptByte disagrees with NextBytes", pattern, accepted);
    if (!allowed) continue;
    accepted += c;
    const Utf8 utf8 = CheckUtf8(accepted);
    if (utf8 == Utf8::kInvalid) Fail("accepted bytes that are not UTF-8", pattern, accepted);
    if (matcher.IsAccepting() && utf8 != Utf8::kComplete) Fail("accepting inside a code point", pattern, accepted);
  }
  const bool accepting = matcher.IsAccepting();
  matcher.RollbackTo(0);
  if (!matcher.AcceptBytes(accepted) || matcher.IsAccepting() != accepting) {
    Fail("the same bytes after a rollback give another verdict", pattern, accepted);
  }
}

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
      Fail("a refusal that is not INVALID_ARGUMENT", pattern, "");
    }
    return 0;
  }
  GrammarBuilder builder;
  builder.Define("root", *expr);
  GrammarLimits grammar_limits;
  grammar_limits.max_symbols = kMaxSymbols;
  auto grammar = builder.Build("root", grammar_limits);
  if (!grammar.ok()) return 0;  // too large for these limits
  RunMatcher(std::make_shared<const Grammar>(std::move(*grammar)), pattern, text);
  return 0;
}
