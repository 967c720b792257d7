#include "pagoda/structured/grammar_text.h"

#include "pagoda/structured/ebnf.h"
#include "pagoda/structured/lark.h"

namespace pagoda::structured {
namespace {

bool IsNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9') || c == '-'; }

// The line begins a Lark definition: [?!]* name ['.' [+-] digits] ['{'...'}'] ':'
// with the colon not the start of '::='.
bool BeginsLarkDefinition(std::string_view line) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos) return false;
  while (i < line.size() && (line[i] == '?' || line[i] == '!')) ++i;
  if (i == line.size() || !IsNameStart(line[i])) return false;
  while (i < line.size() && IsNameChar(line[i])) ++i;
  auto blanks = [&] {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  };
  blanks();
  if (i < line.size() && line[i] == '.') {
    ++i;
    if (i < line.size() && (line[i] == '+' || line[i] == '-')) ++i;
    while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
    blanks();
  }
  if (i < line.size() && line[i] == '{') {
    const size_t close = line.find('}', i);
    if (close == std::string_view::npos) return false;
    i = close + 1;
    blanks();
  }
  return i < line.size() && line[i] == ':' && line.substr(i, 3) != "::=";
}

// Whether '::=' stands outside "..." strings, # comments and // comments.
bool HasGbnfDefinition(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i) {
        if (text[i] == '\\') ++i;
      }
    } else if (c == '#' || (c == '/' && i + 1 < text.size() && text[i + 1] == '/')) {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (text.substr(i, 3) == "::=") {
      return true;
    }
  }
  return false;
}

}  // namespace

GrammarDialect DetectGrammarDialect(std::string_view text) {
  if (HasGbnfDefinition(text)) return GrammarDialect::kGbnf;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    if (BeginsLarkDefinition(text.substr(start, end - start))) return GrammarDialect::kLark;
    start = end + 1;
  }
  return GrammarDialect::kGbnf;
}

StatusOr<Grammar> GrammarFromText(std::string_view text) {
  if (DetectGrammarDialect(text) == GrammarDialect::kLark) return LarkToGrammar(text);
  return EbnfToGrammar(text);
}

}  // namespace pagoda::structured
