#include "pagoda/structured/lark_common.h"

#include <array>
#include <utility>

namespace pagoda::structured {
namespace {

#define PAGODA_LARK_INT "[0-9]+"
#define PAGODA_LARK_EXP "[eE][+-]?[0-9]+"
#define PAGODA_LARK_DECIMAL "(?:[0-9]+\\.[0-9]*|\\.[0-9]+)"
#define PAGODA_LARK_FLOAT "(?:[0-9]+" PAGODA_LARK_EXP "|" PAGODA_LARK_DECIMAL "(?:" PAGODA_LARK_EXP ")?)"
#define PAGODA_LARK_NUMBER "(?:" PAGODA_LARK_FLOAT "|" PAGODA_LARK_INT ")"

constexpr std::array<std::pair<std::string_view, std::string_view>, 24> kCommon = {{
    {"CNAME", "[_A-Za-z][_A-Za-z0-9]*"},
    {"CPP_COMMENT", "//[^\\n]*"},
    {"CR", "\\r"},
    {"C_COMMENT", "/\\*(?:[^*]|\\*+[^*/])*\\*+/"},
    {"DECIMAL", PAGODA_LARK_DECIMAL},
    {"DIGIT", "[0-9]"},
    {"ESCAPED_STRING", "\"(?:[^\"\\\\\\n]|\\\\[^\\n])*\""},
    {"FLOAT", PAGODA_LARK_FLOAT},
    {"HEXDIGIT", "[a-fA-F0-9]"},
    {"INT", PAGODA_LARK_INT},
    {"LCASE_LETTER", "[a-z]"},
    {"LETTER", "[A-Za-z]"},
    {"LF", "\\n"},
    {"NEWLINE", "(?:\\r?\\n)+"},
    {"NUMBER", PAGODA_LARK_NUMBER},
    {"SH_COMMENT", "#[^\\n]*"},
    {"SIGNED_FLOAT", "[+-]?" PAGODA_LARK_FLOAT},
    {"SIGNED_INT", "[+-]?" PAGODA_LARK_INT},
    {"SIGNED_NUMBER", "[+-]?" PAGODA_LARK_NUMBER},
    {"SQL_COMMENT", "--[^\\n]*"},
    {"UCASE_LETTER", "[A-Z]"},
    {"WORD", "[A-Za-z]+"},
    {"WS", "[ \\t\\f\\r\\n]+"},
    {"WS_INLINE", "[ \\t]+"},
}};

#undef PAGODA_LARK_NUMBER
#undef PAGODA_LARK_FLOAT
#undef PAGODA_LARK_DECIMAL
#undef PAGODA_LARK_EXP
#undef PAGODA_LARK_INT

}  // namespace

std::string_view LarkCommonPattern(std::string_view name) {
  for (const auto& [common, pattern] : kCommon) {
    if (common == name) return pattern;
  }
  return {};
}

std::string_view LarkCommonNames() {
  return "CNAME, CPP_COMMENT, CR, C_COMMENT, DECIMAL, DIGIT, ESCAPED_STRING, FLOAT, HEXDIGIT, INT, LCASE_LETTER, "
         "LETTER, LF, NEWLINE, NUMBER, SH_COMMENT, SIGNED_FLOAT, SIGNED_INT, SIGNED_NUMBER, SQL_COMMENT, "
         "UCASE_LETTER, WORD, WS, WS_INLINE";
}

}  // namespace pagoda::structured
