#include "pagoda/structured/utf8_ranges.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace pagoda::structured {
namespace {

std::string Encode(char32_t c) {
  std::string out;
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
  return out;
}

bool Matches(const ByteRangeSequence& sequence, const std::string& bytes) {
  if (sequence.size() != bytes.size()) return false;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const auto b = static_cast<uint8_t>(bytes[i]);
    if (b < sequence[i].first || b > sequence[i].second) return false;
  }
  return true;
}

bool InRanges(const CodePointRanges& ranges, char32_t c) {
  for (const auto& [first, last] : ranges) {
    if (c >= first && c <= last) return true;
  }
  return false;
}

// The sequences match the encoding of every code point in the ranges, of
// none outside, and nothing else: the byte strings they spell, counted as
// products of range sizes, are exactly as many as the code points.
void ExpectExactly(const CodePointRanges& ranges) {
  const auto sequences = Utf8Sequences(ranges);
  uint64_t spelled = 0;
  for (const auto& sequence : sequences) {
    uint64_t product = 1;
    for (const auto& [first, last] : sequence) product *= last - first + 1;
    spelled += product;
  }
  uint64_t expected = 0;
  int mismatches = 0;
  for (char32_t c = 0; c <= kMaxCodePoint; ++c) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    const bool in = InRanges(ranges, c);
    expected += in;
    const std::string bytes = Encode(c);
    int matched = 0;
    for (const auto& sequence : sequences) matched += Matches(sequence, bytes);
    if (matched != (in ? 1 : 0) && ++mismatches <= 5) {
      ADD_FAILURE() << "U+" << std::hex << static_cast<uint32_t>(c) << " matched " << matched << " times";
    }
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(spelled, expected);
}

TEST(structured_utf8_ranges, EveryCodePoint) { ExpectExactly({{0, kMaxCodePoint}}); }

TEST(structured_utf8_ranges, BoundariesOfEachLength) {
  ExpectExactly({{0x7F, 0x80}, {0x7FF, 0x800}, {0xFFFF, 0x10000}, {0xD7FF, 0xE000}});
}

TEST(structured_utf8_ranges, RandomRanges) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 4; ++trial) {
    CodePointRanges ranges;
    for (int i = 0; i < 6; ++i) {
      const char32_t first = rng() % (kMaxCodePoint + 1);
      const char32_t span = (i % 2 == 0) ? rng() % 300 : rng() % 70000;
      ranges.emplace_back(first, std::min<char32_t>(first + span, kMaxCodePoint));
    }
    ExpectExactly(ranges);
  }
}

TEST(structured_utf8_ranges, ComplementLeavesOutSurrogatesAndTheRanges) {
  const CodePointRanges quote_or_backslash = {{'"', '"'}, {'\\', '\\'}};
  const CodePointRanges rest = Complement(quote_or_backslash);
  ASSERT_EQ(rest.size(), 4u);
  EXPECT_EQ(rest[0], std::make_pair(char32_t{0}, char32_t{'"' - 1}));
  EXPECT_EQ(rest[1], std::make_pair(char32_t{'"' + 1}, char32_t{'\\' - 1}));
  EXPECT_EQ(rest[2], std::make_pair(char32_t{'\\' + 1}, char32_t{0xD7FF}));
  EXPECT_EQ(rest[3], std::make_pair(char32_t{0xE000}, kMaxCodePoint));
}

}  // namespace
}  // namespace pagoda::structured
