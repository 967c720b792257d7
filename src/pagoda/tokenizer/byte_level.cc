#include "pagoda/tokenizer/byte_level.h"

#include <array>

#include "pagoda/tokenizer/utf8.h"

namespace pagoda::tokenizer {
namespace {

constexpr bool MapsToItself(int b) {
  return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

// The remapped bytes take consecutive code points from U+0100, so every
// mapped code point is below 0x100 + 256.
constexpr char32_t kMappedLimit = 0x200;

struct Tables {
  std::array<char32_t, 256> to_codepoint{};
  std::array<int16_t, kMappedLimit> to_byte{};  // -1 where unmapped
};

constexpr Tables BuildTables() {
  Tables t;
  for (auto& b : t.to_byte) b = -1;
  char32_t next = 0x100;
  for (int b = 0; b < 256; ++b) {
    const char32_t cp = MapsToItself(b) ? static_cast<char32_t>(b) : next++;
    t.to_codepoint[b] = cp;
    t.to_byte[cp] = static_cast<int16_t>(b);
  }
  return t;
}

constexpr Tables kTables = BuildTables();

}  // namespace

char32_t ByteToCodepoint(uint8_t byte) { return kTables.to_codepoint[byte]; }

std::optional<uint8_t> CodepointToByte(char32_t codepoint) {
  if (codepoint >= kMappedLimit || kTables.to_byte[codepoint] < 0) return std::nullopt;
  return static_cast<uint8_t>(kTables.to_byte[codepoint]);
}

std::string BytesToVocabText(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) AppendUtf8(ByteToCodepoint(static_cast<uint8_t>(c)), &out);
  return out;
}

std::optional<std::string> VocabTextToBytes(std::string_view text) {
  std::string out;
  size_t pos = 0;
  char32_t cp;
  while (pos < text.size()) {
    if (!NextCodepoint(text, &pos, &cp)) return std::nullopt;
    const std::optional<uint8_t> byte = CodepointToByte(cp);
    if (!byte) return std::nullopt;
    out.push_back(static_cast<char>(*byte));
  }
  return out;
}

}  // namespace pagoda::tokenizer
