// Parses tokens into the AST with jinja2's grammar and operator precedence.
#pragma once

#include <string_view>

#include "pagoda/chat_template/ast.h"

namespace pagoda::chat_template {

// Nesting limits that keep parsing and evaluation recursion shallow whatever
// the template: brackets, unary operators and blocks inside each other, and
// the height of any expression tree (long operator chains build deep trees).
inline constexpr int kMaxParseDepth = 128;
inline constexpr int kMaxExpressionHeight = 256;

// Parses a normalized source (see NormalizeSource). Throws a syntax
// TemplateError, also for filters and tests that do not exist outside
// if-blocks and conditional expressions, as jinja2 does when compiling.
ast::Body ParseTemplate(std::string_view source);

}  // namespace pagoda::chat_template
