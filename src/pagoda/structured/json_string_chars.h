// How JSON spells characters inside strings (RFC 8259, section 7): raw
// UTF-8 for every code point from U+0020 but '"' and '\', the two-character
// escapes \" \\ \/ \b \f \n \r \t, and \uXXXX with hex digits in either
// case, supplementary code points as a surrogate pair of escapes. Raw
// control characters are refused, and so are lone surrogate escapes (they
// decode to no Unicode text; Python keeps them, I-JSON forbids them).
#pragma once

#include <string>
#include <string_view>

#include "pagoda/structured/expr.h"
#include "pagoda/structured/utf8_ranges.h"

namespace pagoda::structured {

// The code points in both sets.
CodePointRanges Intersect(const CodePointRanges& a, const CodePointRanges& b);

// One string character, in any of its spellings, that decodes to a code
// point of `ranges`.
ExprPtr JsonStringChar(const CodePointRanges& ranges);

// Any one string character.
ExprPtr AnyJsonStringChar();

// `text` (UTF-8) as a JSON string in its canonical spelling, quotes
// included: raw but for '"', '\' and control characters, which take their
// two-character escape or \u00xx (lower-case hex), as Python's
// json.dumps(ensure_ascii=False) and nlohmann::json::dump() write it.
std::string CanonicalJsonString(std::string_view text);

}  // namespace pagoda::structured
