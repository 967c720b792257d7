// UTF-8 and the character classes Python's str methods use. Every string the
// engine handles is valid UTF-8 (template sources and context strings are
// checked on entry), and Python counts, indexes and slices strings by code
// point, so those operations decode.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pagoda::chat_template {

bool IsValidUtf8(std::string_view text);

// Decodes the code point at `*pos` of valid UTF-8 and advances `*pos`.
char32_t DecodeUtf8(std::string_view text, size_t* pos);
void AppendUtf8(char32_t codepoint, std::string* out);

std::u32string ToCodepoints(std::string_view text);
std::string FromCodepoints(std::u32string_view codepoints);
size_t CodepointCount(std::string_view text);

// str.isspace(): ASCII whitespace, the separators \x1c-\x1f and Unicode's
// space characters. Also what `\s` matches in Jinja's lexer.
bool IsPythonSpace(char32_t c);

// Case mapping for ASCII, Latin-1, Latin Extended-A, basic Greek and
// Cyrillic, and fullwidth ASCII; other code points have no case here (Python
// maps all of Unicode, which would need its tables).
char32_t ToUpper(char32_t c);
char32_t ToLower(char32_t c);
bool IsCased(char32_t c);

}  // namespace pagoda::chat_template
