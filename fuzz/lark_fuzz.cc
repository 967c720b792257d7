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
constexpr size_t kMaxSteeringBytes = 256;

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

// The n-th byte of `set`, n < set.Count().
uint8_t NthByte(const ByteSet& set, int n) {
  for (int b = 0; b < 256; ++b) {
    if (set.Contains(static_cast<uint8_t>(b)) && n-- == 0) return static_cast<uint8_t>(b);
  }
  Fail("NthByte", "past the set");
  return 0;
}

// A Lark grammar matches UTF-8 text: what a matcher took is UTF-8 or the
// start of it, and complete where the matcher accepts.
void CheckAccepted(std::string_view accepted, bool accepting) {
  const Utf8 utf8 = CheckUtf8(accepted);
  if (utf8 == Utf8::kInvalid) Fail("accepted bytes that are not UTF-8", std::string(accepted));
  if (accepting && utf8 != Utf8::kComplete) Fail("accepting inside a code point", std::string(accepted));
}

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

  GrammarMatcher matcher(grammar, kMaxStacks);
  std::string accepted;
  for (const char c : steering) {
    if (matcher.Overflowed()) break;
    const auto byte = static_cast<uint8_t>(c);
    const bool allowed = matcher.NextBytes().Contains(byte);
    if (matcher.AcceptByte(byte) != allowed && !matcher.Overflowed()) {
      Fail("AcceptByte disagrees with NextBytes", std::to_string(byte));
    }
    if (!allowed) continue;
    accepted.push_back(c);
    if (lark) CheckAccepted(accepted, matcher.IsAccepting());
  }
  const bool accepting = matcher.IsAccepting();
  if (!matcher.Overflowed()) {
    matcher.RollbackTo(0);
    if (!matcher.AcceptBytes(accepted) || matcher.IsAccepting() != accepting) Fail("replay after rollback", accepted);
  }

  GrammarMatcher walker(grammar, kMaxStacks);
  std::string walked;
  for (const char c : steering) {
    const ByteSet next = walker.NextBytes();
    if (next.Empty() || walker.Overflowed()) break;
    const uint8_t byte = NthByte(next, static_cast<uint8_t>(c) % next.Count());
    // Refused only when this step overflowed (a grammar too ambiguous to follow).
    if (!walker.AcceptByte(byte)) {
      if (!walker.Overflowed()) Fail("a byte from NextBytes refused", std::to_string(byte));
      break;
    }
    walked.push_back(static_cast<char>(byte));
    if (lark) CheckAccepted(walked, walker.IsAccepting());
  }
  return 0;
}
