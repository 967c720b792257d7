// SentencePiece's text conventions, shared by encoding and decoding: spaces
// are spelled U+2581 "▁" in the vocabulary, and byte-fallback tokens are
// named <0xXX> (two uppercase hex digits).
#pragma once

#include <string>
#include <string_view>

#include "pagoda/tokenizer/tokenizer_spec.h"

namespace pagoda::tokenizer {

// `text` with every space (0x20 only, as llama.cpp's llama_escape_whitespace)
// replaced by U+2581, appended to `out`.
void AppendEscapedSpaces(std::string_view text, std::string* out);

// The bytes a token decodes to (llama.cpp's token_to_piece with special
// tokens rendered): a byte token's byte, a normal token's text with U+2581
// as spaces, and control, unknown and user-defined tokens' text as is.
std::string SpmTokenPiece(const std::string& text, TokenType type);

}  // namespace pagoda::tokenizer
