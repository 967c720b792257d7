// UTF-8 helpers shared by the byte-level mapping, decoding and streaming.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace pagoda::tokenizer {

inline constexpr char32_t kReplacementChar = 0xFFFD;

void AppendUtf8(char32_t codepoint, std::string* out);

// Decodes the well-formed code point starting at `*pos` and advances `*pos`
// past it. Returns false (leaving `*pos` alone) on an ill-formed or truncated
// sequence.
bool NextCodepoint(std::string_view text, size_t* pos, char32_t* codepoint);

bool IsValidUtf8(std::string_view text);

// Appends `bytes` to `out` with every ill-formed part replaced by U+FFFD, one
// per maximal subpart (Unicode's recommended practice, which Rust's
// String::from_utf8_lossy and so Hugging Face's ByteLevel decoder follow).
//
// When `at_end` is false, a trailing truncated sequence that more bytes could
// still complete is left unconsumed instead of being replaced; the return
// value is the number of bytes consumed.
size_t AppendUtf8Lossy(std::string_view bytes, bool at_end, std::string* out);

}  // namespace pagoda::tokenizer
