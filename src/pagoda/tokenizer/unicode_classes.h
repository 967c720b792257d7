// Brings a PCRE2 pattern's general categories (\p{L}, \p{S}, ...) up to
// Unicode 16.0, the version of the reference tokenizers.
//
// The reference tokenizers run their regexes with Oniguruma, whose Unicode
// tables are newer than those of the PCRE2 we link (Debian 12: PCRE2 10.42,
// Unicode 14.0; Hugging Face tokenizers 0.23: Unicode 16.0), so a character
// that Unicode added since, such as the emoji U+1FABF, is in none of PCRE2's
// categories and splits differently. Each \p{X} gets the code points in X
// that Unicode assigned after PCRE2's version: ICU's (Debian 12: ICU 72,
// Unicode 15.0), and for those that Unicode 15.1 and 16.0 added, a generated
// table (unicode_16_categories.inc). Everything PCRE2 knows stays with
// PCRE2's own \p{X}, which matches much faster than an explicit list of
// every range of X would.
#pragma once

#include <string>
#include <string_view>

#include "pagoda/base/status.h"

namespace pagoda::tokenizer {

// `pattern` with each \p{X}, X a general category, widened to Unicode 16.0's X:
// in a class, the newer code points are added to it ("[^\p{L}]" becomes
// "[^\p{L}\x{...}-\x{...}]"); outside one, \p{X} becomes such a class. The
// pattern must not hold a ']' that does not close a class (as the first item
// of one) nor \Q...\E. The code points of each category are computed once per
// process. INTERNAL for an X that is not a general category.
StatusOr<std::string> WithUnicode16GeneralCategories(std::string_view pattern);

}  // namespace pagoda::tokenizer
