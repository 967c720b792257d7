// GPT-2's reversible byte <-> Unicode mapping: every byte gets a printable
// code point so that byte-level BPE vocabularies are plain text. Printable
// Latin-1 bytes map to themselves; the other 68 bytes map, in order, to
// U+0100 onwards (space is U+0120 'Ġ', newline U+010A 'Ċ').
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pagoda::tokenizer {

char32_t ByteToCodepoint(uint8_t byte);

// The byte a mapped code point stands for; nullopt for code points outside
// the mapping.
std::optional<uint8_t> CodepointToByte(char32_t codepoint);

// UTF-8 of the mapped code points of `bytes`: the vocabulary spelling.
std::string BytesToVocabText(std::string_view bytes);

// Inverse of BytesToVocabText: nullopt if `text` is not valid UTF-8 or has a
// code point outside the mapping.
std::optional<std::string> VocabTextToBytes(std::string_view text);

}  // namespace pagoda::tokenizer
