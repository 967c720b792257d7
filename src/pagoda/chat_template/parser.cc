#include "pagoda/chat_template/parser.h"

#include <algorithm>
#include <initializer_list>
#include <utility>
#include <vector>

#include "pagoda/chat_template/error.h"
#include "pagoda/chat_template/filters.h"
#include "pagoda/chat_template/jinja_tests.h"
#include "pagoda/chat_template/lexer.h"

namespace pagoda::chat_template {
namespace {

using namespace ast;  // NOLINT: the parser builds every node type

using EndRules = std::initializer_list<std::string_view>;

int HeightOf(const Expr* e) { return e == nullptr ? 0 : e->height; }

int ArgumentsHeight(const Arguments& args) {
  int h = std::max(HeightOf(args.star_args.get()), HeightOf(args.star_kwargs.get()));
  for (const auto& a : args.positional) h = std::max(h, a->height);
  for (const auto& [name, a] : args.keyword) h = std::max(h, a->height);
  return h;
}

int ChildrenHeight(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kConst:
    case Expr::Kind::kName:
    case Expr::Kind::kNamespaceRef: return 0;
    case Expr::Kind::kGetAttr: return static_cast<const GetAttr&>(e).object->height;
    case Expr::Kind::kGetItem: {
      const auto& g = static_cast<const GetItem&>(e);
      return std::max(g.object->height, g.index->height);
    }
    case Expr::Kind::kSlice: {
      const auto& s = static_cast<const Slice&>(e);
      return std::max({HeightOf(s.start.get()), HeightOf(s.stop.get()), HeightOf(s.step.get())});
    }
    case Expr::Kind::kList: {
      int h = 0;
      for (const auto& item : static_cast<const List&>(e).items) h = std::max(h, item->height);
      return h;
    }
    case Expr::Kind::kDict: {
      int h = 0;
      for (const auto& [k, v] : static_cast<const Dict&>(e).items) h = std::max({h, k->height, v->height});
      return h;
    }
    case Expr::Kind::kUnary: return static_cast<const Unary&>(e).operand->height;
    case Expr::Kind::kBinary: {
      const auto& b = static_cast<const Binary&>(e);
      return std::max(b.left->height, b.right->height);
    }
    case Expr::Kind::kConcat: {
      int h = 0;
      for (const auto& part : static_cast<const Concat&>(e).parts) h = std::max(h, part->height);
      return h;
    }
    case Expr::Kind::kCompare: {
      const auto& c = static_cast<const Compare&>(e);
      int h = c.first->height;
      for (const auto& [op, operand] : c.rest) h = std::max(h, operand->height);
      return h;
    }
    case Expr::Kind::kCondExpr: {
      const auto& c = static_cast<const CondExpr&>(e);
      return std::max({c.test->height, c.then->height, HeightOf(c.otherwise.get())});
    }
    case Expr::Kind::kCall: {
      const auto& c = static_cast<const Call&>(e);
      return std::max(c.callee->height, ArgumentsHeight(c.args));
    }
    case Expr::Kind::kFilter: {
      const auto& f = static_cast<const Filter&>(e);
      return std::max(HeightOf(f.input.get()), ArgumentsHeight(f.args));
    }
    case Expr::Kind::kTest: {
      const auto& t = static_cast<const Test&>(e);
      return std::max(t.input->height, ArgumentsHeight(t.args));
    }
  }
  return 0;
}

std::string Describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::kName:
    case TokenKind::kOperator: return t.text;
    case TokenKind::kString: return "string literal";
    case TokenKind::kInteger:
    case TokenKind::kFloat: return "number";
    case TokenKind::kData: return "template data";
    case TokenKind::kVariableBegin: return "begin of print statement";
    case TokenKind::kVariableEnd: return "end of print statement";
    case TokenKind::kBlockBegin: return "begin of statement block";
    case TokenKind::kBlockEnd: return "end of statement block";
    case TokenKind::kEof: return "end of template";
  }
  return "token";
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  Body Run() {
    Body body = Subparse({});
    for (const Unknown& u : unknowns_) {
      if (!u.soft) ThrowSyntax(u.offset, "no {} named '{}'", u.is_filter ? "filter" : "test", u.name);
    }
    return body;
  }

 private:
  // Counts nested parsing so hostile input cannot exhaust the stack.
  class DepthGuard {
   public:
    explicit DepthGuard(Parser* p) : p_(p) {
      if (++p_->depth_ > kMaxParseDepth) ThrowSyntax(p_->Cur().offset, "template nests too deeply");
    }
    ~DepthGuard() { --p_->depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    Parser* p_;
  };

  // Saves and restores a parser flag around a nested construct.
  class FlagScope {
   public:
    FlagScope(bool* flag, bool value) : flag_(flag), saved_(*flag) { *flag = value; }
    ~FlagScope() { *flag_ = saved_; }
    FlagScope(const FlagScope&) = delete;
    FlagScope& operator=(const FlagScope&) = delete;

   private:
    bool* flag_;
    bool saved_;
  };

  struct Unknown {
    uint32_t offset;
    std::string name;
    bool is_filter;
    bool soft;  // inside an if-block or conditional expression
  };

  const Token& Cur() const { return tokens_[pos_]; }
  const Token& Look() const { return tokens_[std::min(pos_ + 1, tokens_.size() - 1)]; }
  const Token& Next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  static bool IsName(const Token& t, std::string_view name) { return t.kind == TokenKind::kName && t.text == name; }
  static bool IsOp(const Token& t, std::string_view op) { return t.kind == TokenKind::kOperator && t.text == op; }
  bool SkipName(std::string_view name) {
    if (!IsName(Cur(), name)) return false;
    Next();
    return true;
  }
  bool SkipOp(std::string_view op) {
    if (!IsOp(Cur(), op)) return false;
    Next();
    return true;
  }

  [[noreturn]] void FailExpected(std::string_view what) const {
    if (Cur().kind == TokenKind::kEof) ThrowSyntax(Cur().offset, "unexpected end of template, expected '{}'", what);
    ThrowSyntax(Cur().offset, "expected '{}', got '{}'", what, Describe(Cur()));
  }
  const Token& Expect(TokenKind kind, std::string_view what) {
    if (Cur().kind != kind) FailExpected(what);
    return Next();
  }
  void ExpectOp(std::string_view op) {
    if (!IsOp(Cur(), op)) FailExpected(op);
    Next();
  }
  const Token& ExpectName() { return Expect(TokenKind::kName, "name"); }
  void ExpectName(std::string_view name) {
    if (!IsName(Cur(), name)) FailExpected(name);
    Next();
  }

  template <typename T>
  std::unique_ptr<Expr> Finish(std::unique_ptr<T> node) {
    node->height = 1 + ChildrenHeight(*node);
    if (node->height > kMaxExpressionHeight) ThrowSyntax(node->offset, "expression nests too deeply");
    return node;
  }

  // ---- Statements ----

  // Template data, prints and statements until a block whose tag is one of
  // `end_rules`; the current token is then that tag's name.
  Body Subparse(EndRules end_rules) {
    Body body;
    for (;;) {
      const Token& t = Cur();
      switch (t.kind) {
        case TokenKind::kData:
          body.push_back(std::make_unique<Text>(t.offset, t.text));
          Next();
          break;
        case TokenKind::kVariableBegin: {
          Next();
          ExprPtr e = ParseTuple(/*simplified=*/false, /*with_condexpr=*/true, {});
          body.push_back(std::make_unique<Print>(t.offset, std::move(e)));
          Expect(TokenKind::kVariableEnd, "}}");
          break;
        }
        case TokenKind::kBlockBegin: {
          Next();
          if (Cur().kind == TokenKind::kName &&
              std::find(end_rules.begin(), end_rules.end(), Cur().text) != end_rules.end()) {
            return body;
          }
          ParseStatement(&body);
          Expect(TokenKind::kBlockEnd, "%}");
          break;
        }
        case TokenKind::kEof:
          if (end_rules.size() != 0) FailExpected(*end_rules.begin());
          return body;
        default: ThrowSyntax(t.offset, "unexpected '{}'", Describe(t));
      }
    }
  }

  // A block's body up to one of `end_rules`; with `drop_needle` the end tag's
  // name is consumed too.
  Body ParseStatements(EndRules end_rules, bool drop_needle) {
    DepthGuard guard(this);
    SkipOp(":");
    Expect(TokenKind::kBlockEnd, "%}");
    Body body = Subparse(end_rules);
    if (drop_needle) Next();
    return body;
  }

  // Appends the statement (a generation block's body statements, spliced).
  void ParseStatement(Body* out) {
    const Token& t = Cur();
    if (t.kind != TokenKind::kName) ThrowSyntax(t.offset, "tag name expected");
    const std::string& tag = t.text;
    if (tag == "generation") {
      // transformers' tag marking assistant text for its token masks; the
      // rendered text is just the body's.
      Next();
      for (auto& stmt : ParseStatements({"endgeneration"}, /*drop_needle=*/true)) out->push_back(std::move(stmt));
      return;
    }
    out->push_back(ParseSimpleStatement(t));
  }

  StmtPtr ParseSimpleStatement(const Token& t) {
    const std::string& tag = t.text;
    if (tag == "for") return ParseFor();
    if (tag == "if") return ParseIf();
    if (tag == "set") return ParseSet();
    if (tag == "macro") return ParseMacro();
    if (tag == "filter") return ParseFilterBlock();
    if (tag == "break" || tag == "continue") {
      if (loop_depth_ == 0) ThrowSyntax(t.offset, "'{}' outside of a loop", tag);
      Next();
      if (tag == "break") return std::make_unique<Break>(t.offset);
      return std::make_unique<Continue>(t.offset);
    }
    ThrowSyntax(t.offset, "unknown or unsupported tag '{}'", tag);
  }

  StmtPtr ParseFor() {
    auto node = std::make_unique<For>(Next().offset);
    node->target = ParseAssignTarget(/*with_namespace=*/false, {"in"});
    ExpectName("in");
    node->iterable = ParseTuple(/*simplified=*/false, /*with_condexpr=*/false, {"recursive"});
    FlagScope not_soft(&soft_, false);
    if (SkipName("if")) node->filter = ParseExpression(true);
    if (IsName(Cur(), "recursive")) ThrowSyntax(Cur().offset, "recursive loops are not supported");
    ++loop_depth_;
    node->body = ParseStatements({"endfor", "else"}, /*drop_needle=*/false);
    --loop_depth_;
    if (Next().text == "else") node->otherwise = ParseStatements({"endfor"}, /*drop_needle=*/true);
    return node;
  }

  StmtPtr ParseIf() {
    auto node = std::make_unique<If>(Next().offset);
    FlagScope soft(&soft_, true);
    for (;;) {
      ExprPtr test = ParseTuple(/*simplified=*/false, /*with_condexpr=*/false, {});
      Body body = ParseStatements({"elif", "else", "endif"}, /*drop_needle=*/false);
      node->branches.emplace_back(std::move(test), std::move(body));
      const Token& t = Next();
      if (t.text == "elif") continue;
      if (t.text == "else") node->otherwise = ParseStatements({"endif"}, /*drop_needle=*/true);
      break;
    }
    return node;
  }

  StmtPtr ParseSet() {
    const uint32_t offset = Next().offset;
    ExprPtr target = ParseAssignTarget(/*with_namespace=*/true, {});
    if (SkipOp("=")) {
      auto node = std::make_unique<Set>(offset);
      node->target = std::move(target);
      node->value = ParseTuple(/*simplified=*/false, /*with_condexpr=*/true, {});
      return node;
    }
    auto node = std::make_unique<SetBlock>(offset);
    node->target = std::move(target);
    if (IsOp(Cur(), "|")) node->filter = ParseFilter(nullptr, /*start_inline=*/false);
    node->body = ParseStatements({"endset"}, /*drop_needle=*/true);
    return node;
  }

  StmtPtr ParseMacro() {
    auto node = std::make_unique<Macro>(Next().offset);
    node->name = ExpectName().text;
    ExpectOp("(");
    while (!IsOp(Cur(), ")")) {
      if (!node->params.empty()) ExpectOp(",");
      node->params.push_back(ExpectName().text);
      if (SkipOp("=")) {
        node->defaults.push_back(ParseExpression(true));
      } else if (!node->defaults.empty()) {
        ThrowSyntax(Cur().offset, "non-default argument follows default argument");
      }
    }
    ExpectOp(")");
    FlagScope not_soft(&soft_, false);
    const int saved_loop_depth = loop_depth_;
    loop_depth_ = 0;
    macros_.push_back(node.get());
    node->body = ParseStatements({"endmacro"}, /*drop_needle=*/true);
    macros_.pop_back();
    loop_depth_ = saved_loop_depth;
    return node;
  }

  StmtPtr ParseFilterBlock() {
    auto node = std::make_unique<FilterBlock>(Next().offset);
    node->filter = ParseFilter(nullptr, /*start_inline=*/true);
    node->body = ParseStatements({"endfilter"}, /*drop_needle=*/true);
    return node;
  }

  // A name, a tuple of names, or (for set) `ns.attr`.
  ExprPtr ParseAssignTarget(bool with_namespace, EndRules extra_end_rules) {
    ExprPtr target = ParseTuple(/*simplified=*/true, /*with_condexpr=*/true, extra_end_rules, false, with_namespace);
    CheckAssignable(*target);
    return target;
  }

  void CheckAssignable(const Expr& e) {
    if (e.kind == Expr::Kind::kName || e.kind == Expr::Kind::kNamespaceRef) return;
    if (e.kind == Expr::Kind::kList && static_cast<const List&>(e).is_tuple) {
      for (const auto& item : static_cast<const List&>(e).items) CheckAssignable(*item);
      return;
    }
    ThrowSyntax(e.offset, "can't assign to this expression");
  }

  // ---- Expressions ----

  bool IsTupleEnd(EndRules extra_end_rules) const {
    const Token& t = Cur();
    if (t.kind == TokenKind::kVariableEnd || t.kind == TokenKind::kBlockEnd || IsOp(t, ")")) return true;
    if (t.kind != TokenKind::kName) return false;
    return std::find(extra_end_rules.begin(), extra_end_rules.end(), t.text) != extra_end_rules.end();
  }

  // Expressions separated by commas: a tuple when there is a comma.
  // `simplified` parses only names and literals (assignment targets).
  ExprPtr ParseTuple(bool simplified, bool with_condexpr, EndRules extra_end_rules, bool explicit_parentheses = false,
                     bool with_namespace = false) {
    const uint32_t offset = Cur().offset;
    std::vector<ExprPtr> items;
    bool is_tuple = false;
    for (;;) {
      if (!items.empty()) ExpectOp(",");
      if (IsTupleEnd(extra_end_rules)) break;
      items.push_back(simplified ? ParsePrimary(with_namespace) : ParseExpression(with_condexpr));
      if (!IsOp(Cur(), ",")) break;
      is_tuple = true;
    }
    if (!is_tuple) {
      if (!items.empty()) return std::move(items[0]);
      if (!explicit_parentheses) ThrowSyntax(Cur().offset, "expected an expression, got '{}'", Describe(Cur()));
    }
    auto node = std::make_unique<List>(offset, /*tuple=*/true);
    node->items = std::move(items);
    return Finish(std::move(node));
  }

  ExprPtr ParseExpression(bool with_condexpr) {
    DepthGuard guard(this);
    return with_condexpr ? ParseCondExpr() : ParseOr();
  }

  ExprPtr ParseCondExpr() {
    const uint32_t offset = Cur().offset;
    const size_t unknowns_before = unknowns_.size();
    ExprPtr expr = ParseOr();
    while (SkipName("if")) {
      // jinja2 compiles every part of a conditional expression softly.
      for (size_t i = unknowns_before; i < unknowns_.size(); ++i) unknowns_[i].soft = true;
      FlagScope soft(&soft_, true);
      auto node = std::make_unique<CondExpr>(offset);
      node->then = std::move(expr);
      node->test = ParseOr();
      if (SkipName("else")) {
        DepthGuard guard(this);
        node->otherwise = ParseCondExpr();
      }
      expr = Finish(std::move(node));
    }
    return expr;
  }

  ExprPtr ParseOr() {
    ExprPtr left = ParseAnd();
    while (IsName(Cur(), "or")) {
      auto node = std::make_unique<Binary>(Next().offset, Binary::Op::kOr);
      node->left = std::move(left);
      node->right = ParseAnd();
      left = Finish(std::move(node));
    }
    return left;
  }

  ExprPtr ParseAnd() {
    ExprPtr left = ParseNot();
    while (IsName(Cur(), "and")) {
      auto node = std::make_unique<Binary>(Next().offset, Binary::Op::kAnd);
      node->left = std::move(left);
      node->right = ParseNot();
      left = Finish(std::move(node));
    }
    return left;
  }

  ExprPtr ParseNot() {
    if (!IsName(Cur(), "not")) return ParseCompare();
    DepthGuard guard(this);
    auto node = std::make_unique<Unary>(Next().offset, Unary::Op::kNot);
    node->operand = ParseNot();
    return Finish(std::move(node));
  }

  ExprPtr ParseCompare() {
    const uint32_t offset = Cur().offset;
    ExprPtr first = ParseMath1();
    std::vector<std::pair<Compare::Op, ExprPtr>> rest;
    for (;;) {
      const Token& t = Cur();
      Compare::Op op;
      if (IsOp(t, "==")) {
        op = Compare::Op::kEq;
      } else if (IsOp(t, "!=")) {
        op = Compare::Op::kNe;
      } else if (IsOp(t, "<")) {
        op = Compare::Op::kLt;
      } else if (IsOp(t, "<=")) {
        op = Compare::Op::kLe;
      } else if (IsOp(t, ">")) {
        op = Compare::Op::kGt;
      } else if (IsOp(t, ">=")) {
        op = Compare::Op::kGe;
      } else if (IsName(t, "in")) {
        op = Compare::Op::kIn;
      } else if (IsName(t, "not") && IsName(Look(), "in")) {
        Next();
        op = Compare::Op::kNotIn;
      } else {
        break;
      }
      Next();
      rest.emplace_back(op, ParseMath1());
    }
    if (rest.empty()) return first;
    auto node = std::make_unique<Compare>(offset);
    node->first = std::move(first);
    node->rest = std::move(rest);
    return Finish(std::move(node));
  }

  ExprPtr ParseMath1() {
    ExprPtr left = ParseConcat();
    while (IsOp(Cur(), "+") || IsOp(Cur(), "-")) {
      const Token& t = Next();
      auto node = std::make_unique<Binary>(t.offset, t.text == "+" ? Binary::Op::kAdd : Binary::Op::kSub);
      node->left = std::move(left);
      node->right = ParseConcat();
      left = Finish(std::move(node));
    }
    return left;
  }

  ExprPtr ParseConcat() {
    const uint32_t offset = Cur().offset;
    ExprPtr first = ParseMath2();
    if (!IsOp(Cur(), "~")) return first;
    auto node = std::make_unique<Concat>(offset);
    node->parts.push_back(std::move(first));
    while (SkipOp("~")) node->parts.push_back(ParseMath2());
    return Finish(std::move(node));
  }

  ExprPtr ParseMath2() {
    ExprPtr left = ParsePow();
    for (;;) {
      const Token& t = Cur();
      Binary::Op op;
      if (IsOp(t, "*")) {
        op = Binary::Op::kMul;
      } else if (IsOp(t, "/")) {
        op = Binary::Op::kDiv;
      } else if (IsOp(t, "//")) {
        op = Binary::Op::kFloorDiv;
      } else if (IsOp(t, "%")) {
        op = Binary::Op::kMod;
      } else {
        break;
      }
      auto node = std::make_unique<Binary>(Next().offset, op);
      node->left = std::move(left);
      node->right = ParsePow();
      left = Finish(std::move(node));
    }
    return left;
  }

  ExprPtr ParsePow() {
    ExprPtr left = ParseUnary(/*with_filter=*/true);
    while (IsOp(Cur(), "**")) {
      auto node = std::make_unique<Binary>(Next().offset, Binary::Op::kPow);
      node->left = std::move(left);
      node->right = ParseUnary(/*with_filter=*/true);
      left = Finish(std::move(node));
    }
    return left;
  }

  ExprPtr ParseUnary(bool with_filter) {
    ExprPtr node;
    if (IsOp(Cur(), "-") || IsOp(Cur(), "+")) {
      DepthGuard guard(this);
      const Token& t = Next();
      auto unary = std::make_unique<Unary>(t.offset, t.text == "-" ? Unary::Op::kNeg : Unary::Op::kPos);
      unary->operand = ParseUnary(/*with_filter=*/false);
      node = Finish(std::move(unary));
    } else {
      node = ParsePrimary(/*with_namespace=*/false);
    }
    node = ParsePostfix(std::move(node));
    if (with_filter) node = ParseFilterExpr(std::move(node));
    return node;
  }

  ExprPtr ParsePrimary(bool with_namespace) {
    const Token& t = Cur();
    switch (t.kind) {
      case TokenKind::kName: {
        Next();
        if (t.text == "true" || t.text == "True") return Finish(std::make_unique<Const>(t.offset, Value::Bool(true)));
        if (t.text == "false" || t.text == "False") {
          return Finish(std::make_unique<Const>(t.offset, Value::Bool(false)));
        }
        if (t.text == "none" || t.text == "None") return Finish(std::make_unique<Const>(t.offset, Value::None()));
        if (with_namespace && IsOp(Cur(), ".")) {
          Next();
          const std::string& attr = ExpectName().text;
          return Finish(std::make_unique<NamespaceRef>(t.offset, t.text, attr));
        }
        if (!macros_.empty() && (t.text == "varargs" || t.text == "kwargs")) {
          (t.text == "varargs" ? macros_.back()->uses_varargs : macros_.back()->uses_kwargs) = true;
        }
        return Finish(std::make_unique<Name>(t.offset, t.text));
      }
      case TokenKind::kString: {
        std::string text;  // adjacent literals concatenate
        while (Cur().kind == TokenKind::kString) text += Next().text;
        return Finish(std::make_unique<Const>(t.offset, Value::String(std::move(text))));
      }
      case TokenKind::kInteger: Next(); return Finish(std::make_unique<Const>(t.offset, Value::Int(t.int_value)));
      case TokenKind::kFloat: Next(); return Finish(std::make_unique<Const>(t.offset, Value::Float(t.float_value)));
      case TokenKind::kOperator:
        if (t.text == "(") {
          Next();
          ExprPtr e = ParseTuple(/*simplified=*/false, /*with_condexpr=*/true, {}, /*explicit_parentheses=*/true);
          ExpectOp(")");
          return e;
        }
        if (t.text == "[") return ParseList();
        if (t.text == "{") return ParseDict();
        break;
      default: break;
    }
    if (t.kind == TokenKind::kEof) ThrowSyntax(t.offset, "unexpected end of template");
    ThrowSyntax(t.offset, "unexpected '{}'", Describe(t));
  }

  ExprPtr ParseList() {
    auto node = std::make_unique<List>(Next().offset, /*tuple=*/false);
    while (!IsOp(Cur(), "]")) {
      if (!node->items.empty()) ExpectOp(",");
      if (IsOp(Cur(), "]")) break;
      node->items.push_back(ParseExpression(true));
    }
    ExpectOp("]");
    return Finish(std::move(node));
  }

  ExprPtr ParseDict() {
    auto node = std::make_unique<Dict>(Next().offset);
    while (!IsOp(Cur(), "}")) {
      if (!node->items.empty()) ExpectOp(",");
      if (IsOp(Cur(), "}")) break;
      ExprPtr key = ParseExpression(true);
      ExpectOp(":");
      node->items.emplace_back(std::move(key), ParseExpression(true));
    }
    ExpectOp("}");
    return Finish(std::move(node));
  }

  ExprPtr ParsePostfix(ExprPtr node) {
    for (;;) {
      if (IsOp(Cur(), ".") || IsOp(Cur(), "[")) {
        node = ParseSubscript(std::move(node));
      } else if (IsOp(Cur(), "(")) {
        node = ParseCall(std::move(node));
      } else {
        return node;
      }
    }
  }

  ExprPtr ParseFilterExpr(ExprPtr node) {
    for (;;) {
      if (IsOp(Cur(), "|")) {
        node = ParseFilter(std::move(node), /*start_inline=*/false);
      } else if (IsName(Cur(), "is")) {
        node = ParseTest(std::move(node));
      } else if (IsOp(Cur(), "(")) {
        node = ParseCall(std::move(node));
      } else {
        return node;
      }
    }
  }

  ExprPtr ParseSubscript(ExprPtr object) {
    const Token& t = Next();
    if (t.text == ".") {
      const Token& attr = Next();
      if (attr.kind == TokenKind::kName) {
        auto node = std::make_unique<GetAttr>(t.offset);
        node->object = std::move(object);
        node->name = attr.text;
        return Finish(std::move(node));
      }
      if (attr.kind != TokenKind::kInteger) ThrowSyntax(attr.offset, "expected name or number");
      auto node = std::make_unique<GetItem>(t.offset);
      node->object = std::move(object);
      node->index = Finish(std::make_unique<Const>(attr.offset, Value::Int(attr.int_value)));
      return Finish(std::move(node));
    }
    std::vector<ExprPtr> args;
    while (!IsOp(Cur(), "]")) {
      if (!args.empty()) ExpectOp(",");
      args.push_back(ParseSubscribed());
    }
    ExpectOp("]");
    auto node = std::make_unique<GetItem>(t.offset);
    node->object = std::move(object);
    if (args.size() == 1) {
      node->index = std::move(args[0]);
    } else {
      auto tuple = std::make_unique<List>(t.offset, /*tuple=*/true);
      tuple->items = std::move(args);
      node->index = Finish(std::move(tuple));
    }
    return Finish(std::move(node));
  }

  // An index, or a slice `start:stop:step` with any part left out.
  ExprPtr ParseSubscribed() {
    const uint32_t offset = Cur().offset;
    ExprPtr start;
    if (!IsOp(Cur(), ":")) {
      start = ParseExpression(true);
      if (!IsOp(Cur(), ":")) return start;
    }
    Next();
    auto node = std::make_unique<Slice>(offset);
    node->start = std::move(start);
    auto at_part_end = [&] { return IsOp(Cur(), "]") || IsOp(Cur(), ",") || IsOp(Cur(), ":"); };
    if (!at_part_end()) node->stop = ParseExpression(true);
    if (SkipOp(":") && !IsOp(Cur(), "]") && !IsOp(Cur(), ",")) node->step = ParseExpression(true);
    return Finish(std::move(node));
  }

  Arguments ParseCallArgs() {
    const uint32_t offset = Cur().offset;
    ExpectOp("(");
    Arguments args;
    auto ensure = [&](bool ok) {
      if (!ok) ThrowSyntax(offset, "invalid syntax for function call expression");
    };
    bool require_comma = false;
    while (!IsOp(Cur(), ")")) {
      if (require_comma) {
        ExpectOp(",");
        if (IsOp(Cur(), ")")) break;  // trailing comma
      }
      if (SkipOp("*")) {
        ensure(!args.star_args && !args.star_kwargs);
        args.star_args = ParseExpression(true);
      } else if (SkipOp("**")) {
        ensure(!args.star_kwargs);
        args.star_kwargs = ParseExpression(true);
      } else if (Cur().kind == TokenKind::kName && IsOp(Look(), "=")) {
        ensure(!args.star_kwargs);
        std::string key = Next().text;
        Next();
        args.keyword.emplace_back(std::move(key), ParseExpression(true));
      } else {
        ensure(!args.star_args && !args.star_kwargs && args.keyword.empty());
        args.positional.push_back(ParseExpression(true));
      }
      require_comma = true;
    }
    ExpectOp(")");
    return args;
  }

  ExprPtr ParseCall(ExprPtr callee) {
    auto node = std::make_unique<Call>(Cur().offset);
    node->callee = std::move(callee);
    node->args = ParseCallArgs();
    return Finish(std::move(node));
  }

  // Dotted names are jinja2 syntax for filters and tests from extensions.
  std::string ParseDottedName() {
    std::string name = ExpectName().text;
    while (SkipOp(".")) name += "." + ExpectName().text;
    return name;
  }

  ExprPtr ParseFilter(ExprPtr input, bool start_inline) {
    while (IsOp(Cur(), "|") || start_inline) {
      if (!start_inline) Next();
      start_inline = false;
      auto node = std::make_unique<Filter>(Cur().offset);
      node->input = std::move(input);
      node->name = ParseDottedName();
      if (IsOp(Cur(), "(")) node->args = ParseCallArgs();
      // jinja2 rejects unknown filters when compiling, except inside
      // if-blocks and conditional expressions, where only running them fails.
      if (!HasFilter(node->name)) unknowns_.push_back({node->offset, node->name, /*is_filter=*/true, soft_});
      input = Finish(std::move(node));
    }
    return input;
  }

  ExprPtr ParseTest(ExprPtr input) {
    const uint32_t offset = Next().offset;  // `is`
    const bool negated = SkipName("not");
    auto node = std::make_unique<Test>(offset);
    node->input = std::move(input);
    node->name = ParseDottedName();
    const Token& t = Cur();
    if (IsOp(t, "(")) {
      node->args = ParseCallArgs();
    } else if ((t.kind == TokenKind::kName || t.kind == TokenKind::kString || t.kind == TokenKind::kInteger ||
                t.kind == TokenKind::kFloat || IsOp(t, "[") || IsOp(t, "{")) &&
               !IsName(t, "else") && !IsName(t, "or") && !IsName(t, "and")) {
      // `x is divisibleby 3`: one argument without parentheses.
      if (IsName(t, "is")) ThrowSyntax(t.offset, "you cannot chain multiple tests with is");
      node->args.positional.push_back(ParsePostfix(ParsePrimary(/*with_namespace=*/false)));
    }
    if (!HasTest(node->name)) unknowns_.push_back({node->offset, node->name, /*is_filter=*/false, soft_});
    ExprPtr test = Finish(std::move(node));
    if (!negated) return test;
    auto not_node = std::make_unique<Unary>(offset, Unary::Op::kNot);
    not_node->operand = std::move(test);
    return Finish(std::move(not_node));
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  int loop_depth_ = 0;  // break/continue are valid only inside a loop
  bool soft_ = false;
  std::vector<Macro*> macros_;  // being parsed, innermost last
  std::vector<Unknown> unknowns_;
};

}  // namespace

ast::Body ParseTemplate(std::string_view source) { return Parser(Tokenize(source)).Run(); }

}  // namespace pagoda::chat_template
