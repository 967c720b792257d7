// The matcher checks that the grammar fuzzers (ebnf, regex, lark,
// json_schema) share, over a grammar a fuzz input built:
//
//   FeedAsGiven  the steering bytes fed as they are: a byte is accepted
//                exactly when NextBytes holds it, and the accepted prefix
//                gets the same verdict again after rolling back to 0;
//   WalkAllowed  the (b mod n)-th allowed byte taken for each steering
//                byte b: a byte NextBytes offers is never refused.
//
// Both stop at a step that overflows the matcher's stacks (a grammar too
// ambiguous to follow is refused on purpose, whatever NextBytes says), and
// call `on_text` with the text so far after each byte taken, for the
// target's own checks (UTF-8, JSON).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "pagoda/structured/grammar_matcher.h"

namespace pagoda::structured::fuzz {

// Fewer parse stacks than the engine's 4,096 keep each step short; the
// overflow path is exercised all the same.
constexpr size_t kMaxStacks = 256;

[[noreturn]] inline void Fail(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "fuzz check failed: %.*s\n  (%zu bytes) %.*s\n", static_cast<int>(what.size()), what.data(),
               detail.size(), static_cast<int>(detail.size()), detail.data());
  std::abort();
}

enum class Utf8 { kInvalid, kIncomplete, kComplete };

// Whether `text` is UTF-8 (no overlong forms, no surrogates), or a prefix of
// it that stops inside the last code point.
inline Utf8 CheckUtf8(std::string_view text) {
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

// For grammars of code points: what a matcher took is UTF-8 or the start of
// it, and complete where the matcher accepts.
inline void CheckUtf8Text(std::string_view text, bool accepting) {
  const Utf8 utf8 = CheckUtf8(text);
  if (utf8 == Utf8::kInvalid) Fail("accepted bytes that are not UTF-8", text);
  if (accepting && utf8 != Utf8::kComplete) Fail("accepting inside a code point", text);
}

using TextCheck = std::function<void(std::string_view text, bool accepting)>;

struct Walked {
  std::string text;
  bool accepting = false;
  bool overflowed = false;
};

inline Walked FeedAsGiven(const std::shared_ptr<const Grammar>& grammar, std::string_view steering,
                          const TextCheck& on_text = nullptr) {
  GrammarMatcher matcher(grammar, kMaxStacks);
  Walked out;
  for (const char c : steering) {
    const auto byte = static_cast<uint8_t>(c);
    const bool allowed = matcher.NextBytes().Contains(byte);
    const bool took = matcher.AcceptByte(byte);
    if (matcher.Overflowed()) break;
    if (took != allowed) Fail("AcceptByte disagrees with NextBytes", out.text);
    if (!took) continue;
    out.text.push_back(c);
    if (on_text) on_text(out.text, matcher.IsAccepting());
  }
  out.accepting = matcher.IsAccepting();
  out.overflowed = matcher.Overflowed();
  if (!out.overflowed) {
    matcher.RollbackTo(0);
    if (!matcher.AcceptBytes(out.text) || matcher.IsAccepting() != out.accepting) {
      Fail("the same bytes after a rollback give another verdict", out.text);
    }
  }
  return out;
}

// The n-th byte of `set`, n < set.Count().
inline uint8_t NthByte(const ByteSet& set, int n) {
  for (int b = 0; b < 256; ++b) {
    if (set.Contains(static_cast<uint8_t>(b)) && n-- == 0) return static_cast<uint8_t>(b);
  }
  Fail("NthByte past the set", "");
}

inline Walked WalkAllowed(const std::shared_ptr<const Grammar>& grammar, std::string_view steering,
                          const TextCheck& on_text = nullptr) {
  GrammarMatcher walker(grammar, kMaxStacks);
  Walked out;
  for (const char c : steering) {
    const ByteSet next = walker.NextBytes();
    if (next.Empty()) break;
    const uint8_t byte = NthByte(next, static_cast<uint8_t>(c) % next.Count());
    if (!walker.AcceptByte(byte)) {
      if (!walker.Overflowed()) Fail("a byte from NextBytes refused", out.text + static_cast<char>(byte));
      break;
    }
    out.text.push_back(static_cast<char>(byte));
    if (on_text) on_text(out.text, walker.IsAccepting());
  }
  out.accepting = walker.IsAccepting();
  out.overflowed = walker.Overflowed();
  return out;
}

}  // namespace pagoda::structured::fuzz
