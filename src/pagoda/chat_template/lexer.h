// Splits a template into jinja2's tokens: template data between tags, the
// tags' delimiters, and the names, literals and operators inside tags.
// Whitespace control happens here, exactly as in jinja2's lexer with
// transformers' settings: `{%-`/`-%}` strip, trim_blocks drops the newline
// after a block or comment tag, lstrip_blocks drops the indentation before
// one, and `{%+`/`+%}` opt out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pagoda::chat_template {

enum class TokenKind {
  kData,
  kVariableBegin,  // {{
  kVariableEnd,    // }}
  kBlockBegin,     // {%
  kBlockEnd,       // %}
  kName,
  kString,
  kInteger,
  kFloat,
  kOperator,
  kEof,
};

struct Token {
  TokenKind kind;
  uint32_t offset;   // into the normalized source
  std::string text;  // data, name, operator, or a string literal's value
  int64_t int_value = 0;
  double float_value = 0;
};

// The source as jinja2 lexes it: \r\n and \r become \n, and one trailing
// newline is dropped (keep_trailing_newline=False).
std::string NormalizeSource(std::string_view source);

// Tokenizes a normalized source; the last token is kEof. Throws a syntax
// TemplateError.
std::vector<Token> Tokenize(std::string_view source);

}  // namespace pagoda::chat_template
