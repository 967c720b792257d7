// A set of bytes (256 bits): the terminal of every grammar, whose input is
// the UTF-8 bytes of the generated text.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace pagoda::structured {

class ByteSet {
 public:
  ByteSet() = default;
  static ByteSet Of(uint8_t byte) { return Range(byte, byte); }
  // The bytes first..last, inclusive; empty when first > last.
  static ByteSet Range(uint8_t first, uint8_t last) {
    ByteSet set;
    for (int b = first; b <= last; ++b) set.Add(static_cast<uint8_t>(b));
    return set;
  }

  void Add(uint8_t byte) { words_[byte >> 6] |= uint64_t{1} << (byte & 63); }
  void AddAll(const ByteSet& other) {
    for (int i = 0; i < 4; ++i) words_[i] |= other.words_[i];
  }
  bool Contains(uint8_t byte) const { return (words_[byte >> 6] >> (byte & 63)) & 1; }
  bool Empty() const { return (words_[0] | words_[1] | words_[2] | words_[3]) == 0; }
  int Count() const {
    return std::popcount(words_[0]) + std::popcount(words_[1]) + std::popcount(words_[2]) + std::popcount(words_[3]);
  }
  ByteSet Complement() const {
    ByteSet set;
    for (int i = 0; i < 4; ++i) set.words_[i] = ~words_[i];
    return set;
  }
  const std::array<uint64_t, 4>& words() const { return words_; }

  friend bool operator==(const ByteSet&, const ByteSet&) = default;
  friend auto operator<=>(const ByteSet&, const ByteSet&) = default;

 private:
  std::array<uint64_t, 4> words_{};
};

}  // namespace pagoda::structured
