// The parsed template: jinja2's node types, minus the ones for template
// inheritance and includes. Every node records the source offset errors
// point at.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pagoda/chat_template/value.h"

namespace pagoda::chat_template::ast {

struct Expr {
  enum class Kind {
    kConst,
    kName,
    kGetAttr,
    kGetItem,
    kSlice,
    kList,
    kDict,
    kUnary,
    kBinary,
    kConcat,
    kCompare,
    kCondExpr,
    kCall,
    kFilter,
    kTest,
    kNamespaceRef
  };
  Expr(Kind k, uint32_t off) : kind(k), offset(off) {}
  virtual ~Expr() = default;

  Kind kind;
  uint32_t offset;
  int height = 1;  // of the subtree; the parser bounds it
};
using ExprPtr = std::unique_ptr<Expr>;

struct Const : Expr {
  Const(uint32_t off, Value v) : Expr(Kind::kConst, off), value(std::move(v)) {}
  Value value;
};

struct Name : Expr {
  Name(uint32_t off, std::string n) : Expr(Kind::kName, off), name(std::move(n)) {}
  std::string name;
};

// `ns.attr` as an assignment target.
struct NamespaceRef : Expr {
  NamespaceRef(uint32_t off, std::string n, std::string a)
      : Expr(Kind::kNamespaceRef, off), name(std::move(n)), attr(std::move(a)) {}
  std::string name;
  std::string attr;
};

struct GetAttr : Expr {  // object.name
  GetAttr(uint32_t off) : Expr(Kind::kGetAttr, off) {}
  ExprPtr object;
  std::string name;
};

struct GetItem : Expr {  // object[index]; index may be a Slice
  GetItem(uint32_t off) : Expr(Kind::kGetItem, off) {}
  ExprPtr object;
  ExprPtr index;
};

struct Slice : Expr {  // start:stop:step, each optional
  Slice(uint32_t off) : Expr(Kind::kSlice, off) {}
  ExprPtr start, stop, step;
};

struct List : Expr {  // [a, b] or a tuple (a, b)
  List(uint32_t off, bool tuple) : Expr(Kind::kList, off), is_tuple(tuple) {}
  std::vector<ExprPtr> items;
  bool is_tuple;
};

struct Dict : Expr {
  Dict(uint32_t off) : Expr(Kind::kDict, off) {}
  std::vector<std::pair<ExprPtr, ExprPtr>> items;
};

struct Unary : Expr {
  enum class Op { kNeg, kPos, kNot };
  Unary(uint32_t off, Op o) : Expr(Kind::kUnary, off), op(o) {}
  Op op;
  ExprPtr operand;
};

struct Binary : Expr {
  enum class Op { kAdd, kSub, kMul, kDiv, kFloorDiv, kMod, kPow, kAnd, kOr };
  Binary(uint32_t off, Op o) : Expr(Kind::kBinary, off), op(o) {}
  Op op;
  ExprPtr left, right;
};

struct Concat : Expr {  // a ~ b ~ c
  Concat(uint32_t off) : Expr(Kind::kConcat, off) {}
  std::vector<ExprPtr> parts;
};

struct Compare : Expr {  // a < b <= c, chained as in Python
  enum class Op { kEq, kNe, kLt, kLe, kGt, kGe, kIn, kNotIn };
  Compare(uint32_t off) : Expr(Kind::kCompare, off) {}
  ExprPtr first;
  std::vector<std::pair<Op, ExprPtr>> rest;
};

struct CondExpr : Expr {  // then if test else otherwise; no else gives undefined
  CondExpr(uint32_t off) : Expr(Kind::kCondExpr, off) {}
  ExprPtr test, then, otherwise;
};

struct Arguments {
  std::vector<ExprPtr> positional;
  std::vector<std::pair<std::string, ExprPtr>> keyword;
  ExprPtr star_args;    // *args
  ExprPtr star_kwargs;  // **kwargs
};

struct Call : Expr {
  Call(uint32_t off) : Expr(Kind::kCall, off) {}
  ExprPtr callee;
  Arguments args;
};

// `input | name(args)`. In `{% set x | f %}` and `{% filter f %}` the
// innermost filter has no input: the block's output goes there.
struct Filter : Expr {
  Filter(uint32_t off) : Expr(Kind::kFilter, off) {}
  ExprPtr input;
  std::string name;
  Arguments args;
};

struct Test : Expr {  // `input is name(args)`; `is not` wraps it in Not
  Test(uint32_t off) : Expr(Kind::kTest, off) {}
  ExprPtr input;
  std::string name;
  Arguments args;
};

struct Stmt {
  enum class Kind { kText, kPrint, kIf, kFor, kSet, kSetBlock, kMacro, kFilterBlock, kBreak, kContinue };
  Stmt(Kind k, uint32_t off) : kind(k), offset(off) {}
  virtual ~Stmt() = default;

  Kind kind;
  uint32_t offset;
};
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

struct Text : Stmt {
  Text(uint32_t off, std::string t) : Stmt(Kind::kText, off), text(std::move(t)) {}
  std::string text;
};

struct Print : Stmt {  // {{ expr }}
  Print(uint32_t off, ExprPtr e) : Stmt(Kind::kPrint, off), expr(std::move(e)) {}
  ExprPtr expr;
};

struct If : Stmt {
  If(uint32_t off) : Stmt(Kind::kIf, off) {}
  std::vector<std::pair<ExprPtr, Body>> branches;  // if, then each elif
  Body otherwise;
};

struct For : Stmt {
  For(uint32_t off) : Stmt(Kind::kFor, off) {}
  ExprPtr target;  // Name or tuple of names
  ExprPtr iterable;
  ExprPtr filter;  // `for x in xs if cond`, optional
  Body body;
  Body otherwise;  // runs when no item passed the filter
};

struct Set : Stmt {  // {% set target = value %}
  Set(uint32_t off) : Stmt(Kind::kSet, off) {}
  ExprPtr target;  // Name, NamespaceRef or tuple of names
  ExprPtr value;
};

struct SetBlock : Stmt {  // {% set target | filter %}body{% endset %}
  SetBlock(uint32_t off) : Stmt(Kind::kSetBlock, off) {}
  ExprPtr target;
  ExprPtr filter;  // optional
  Body body;
};

struct Macro : Stmt {
  Macro(uint32_t off) : Stmt(Kind::kMacro, off) {}
  std::string name;
  std::vector<std::string> params;
  std::vector<ExprPtr> defaults;  // for the last defaults.size() params
  Body body;
  // jinja2 accepts extra arguments only in macros that read these.
  bool uses_varargs = false;
  bool uses_kwargs = false;
};

struct FilterBlock : Stmt {  // {% filter f %}body{% endfilter %}
  FilterBlock(uint32_t off) : Stmt(Kind::kFilterBlock, off) {}
  ExprPtr filter;
  Body body;
};

struct Break : Stmt {
  explicit Break(uint32_t off) : Stmt(Kind::kBreak, off) {}
};
struct Continue : Stmt {
  explicit Continue(uint32_t off) : Stmt(Kind::kContinue, off) {}
};

}  // namespace pagoda::chat_template::ast
