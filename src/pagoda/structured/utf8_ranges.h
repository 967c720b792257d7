// Code point ranges as byte-level grammar pieces: a set of code points
// becomes a choice of byte sequences, each byte from a range, that spell
// exactly those code points in UTF-8 (surrogates excluded), as regex engines
// that run on bytes do.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace pagoda::structured {

constexpr char32_t kMaxCodePoint = 0x10FFFF;

// Inclusive [first, last] code point ranges.
using CodePointRanges = std::vector<std::pair<char32_t, char32_t>>;

// Sorted, merged, clipped to [0, kMaxCodePoint], surrogates removed.
CodePointRanges Normalize(CodePointRanges ranges);

// Every code point (but surrogates) outside `ranges`.
CodePointRanges Complement(const CodePointRanges& ranges);

// One UTF-8 byte sequence pattern: byte i lies in [first, last] of element i.
using ByteRangeSequence = std::vector<std::pair<uint8_t, uint8_t>>;

// Byte sequences whose union is exactly the UTF-8 encodings of `ranges`'
// code points (after Normalize).
std::vector<ByteRangeSequence> Utf8Sequences(const CodePointRanges& ranges);

}  // namespace pagoda::structured
