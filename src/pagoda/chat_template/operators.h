// Python's semantics for the operators templates use: comparison and
// membership, arithmetic (with Python's floor division and modulo), and
// iteration.
#pragma once

#include <vector>

#include "pagoda/chat_template/ast.h"
#include "pagoda/chat_template/value.h"

namespace pagoda::chat_template {

class Interpreter;

// `a == b`: numbers compare by value across bool, int and float; a tuple
// never equals a list; two undefined values are equal.
bool Equals(const Value& a, const Value& b);
// `a < b` for numbers, strings and same-kind sequences; TypeError otherwise.
bool Less(const Value& a, const Value& b);
// `item in container`: substring, list element or dict key.
bool Contains(const Value& container, const Value& item);

// +, -, *, /, //, % and ** (not `and`/`or`, which short-circuit).
Value Arithmetic(Interpreter& interp, ast::Binary::Op op, const Value& a, const Value& b);
Value Negate(const Value& value);
Value UnaryPlus(const Value& value);

// What a for loop visits: a list's items, a dict's keys, a string's
// characters, what a generator has left; undefined is empty (as jinja2's
// Undefined iterates).
std::vector<Value> Iterate(const Value& value);

}  // namespace pagoda::chat_template
