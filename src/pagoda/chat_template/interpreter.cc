#include "pagoda/chat_template/interpreter.h"

#include "pagoda/chat_template/access.h"
#include "pagoda/chat_template/error.h"
#include "pagoda/chat_template/filters.h"
#include "pagoda/chat_template/globals.h"
#include "pagoda/chat_template/jinja_tests.h"
#include "pagoda/chat_template/operators.h"
#include "pagoda/chat_template/value_format.h"

namespace pagoda::chat_template {
namespace {

// Statements, expressions and macro calls nested inside each other. Each
// level takes a few native frames; this keeps a runaway recursive macro well
// inside a thread's stack.
constexpr int kMaxRenderDepth = 400;

// Text costs one work unit per this many bytes.
constexpr uint64_t kBytesPerWorkUnit = 16;

// The `loop` variable of a for loop. It shares the loop's items, so it stays
// valid if a template keeps it (`{% set ns.l = loop %}`).
class LoopObject : public Object, public std::enable_shared_from_this<LoopObject> {
 public:
  explicit LoopObject(std::shared_ptr<const std::vector<Value>> items) : items_(std::move(items)) {}

  void set_index(size_t index) { index_ = index; }
  size_t index() const { return index_; }

  std::string_view type_name() const override { return "LoopContext"; }
  Value GetAttr(std::string_view name) const override;
  void AppendRepr(BoundedString* out, int) const override {
    out->Append(fmt::format("<LoopContext {}/{}>", index_ + 1, items_->size()));
  }

 private:
  std::shared_ptr<const std::vector<Value>> items_;
  size_t index_ = 0;
};

// loop.cycle(a, b, ...): the argument at the current index, round-robin.
class LoopCycle : public Callable {
 public:
  explicit LoopCycle(std::shared_ptr<const LoopObject> loop) : loop_(std::move(loop)) {}
  std::string_view name() const override { return "cycle"; }
  Value Call(Interpreter&, CallArgs& args) const override {
    if (args.positional.empty()) ThrowRuntime("no items for cycling given");
    return args.positional[loop_->index() % args.positional.size()];
  }

 private:
  std::shared_ptr<const LoopObject> loop_;
};

Value LoopObject::GetAttr(std::string_view name) const {
  const auto n = static_cast<int64_t>(items_->size());
  const auto i = static_cast<int64_t>(index_);
  if (name == "index") return Value::Int(i + 1);
  if (name == "index0") return Value::Int(i);
  if (name == "revindex") return Value::Int(n - i);
  if (name == "revindex0") return Value::Int(n - i - 1);
  if (name == "first") return Value::Bool(i == 0);
  if (name == "last") return Value::Bool(i == n - 1);
  if (name == "length") return Value::Int(n);
  if (name == "depth") return Value::Int(1);
  if (name == "depth0") return Value::Int(0);
  if (name == "previtem") return i > 0 ? (*items_)[i - 1] : Value::Undefined("there is no previous item");
  if (name == "nextitem") return i + 1 < n ? (*items_)[i + 1] : Value::Undefined("there is no next item");
  if (name == "cycle") return Value::FromCallable(std::make_shared<LoopCycle>(shared_from_this()));
  return Value::Undefined(fmt::format("'LoopContext object' has no attribute '{}'", name));
}

class MacroFunction : public Callable {
 public:
  explicit MacroFunction(const ast::Macro* macro) : macro_(macro) {}
  std::string_view name() const override { return macro_->name; }
  Value Call(Interpreter& interp, CallArgs& args) const override { return interp.CallMacro(*macro_, args); }

 private:
  const ast::Macro* macro_;
};

// Sets a variable until destroyed, also when an error unwinds.
template <typename T>
class SetFor {
 public:
  SetFor(T& variable, T value) : variable_(variable), saved_(variable) { variable = value; }
  ~SetFor() { variable_ = saved_; }
  SetFor(const SetFor&) = delete;
  SetFor& operator=(const SetFor&) = delete;

 private:
  T& variable_;
  T saved_;
};

// Adds the node's position to an error thrown while evaluating it, unless an
// inner node already did.
template <typename Fn>
auto Located(uint32_t offset, Fn&& fn) {
  try {
    return fn();
  } catch (TemplateError& e) {
    if (e.offset() == kNoOffset) e.set_offset(offset);
    throw;
  }
}

}  // namespace

Value* Interpreter::Scope::Find(std::string_view name) {
  for (auto& [key, value] : vars) {
    if (key == name) return &value;
  }
  return nullptr;
}

void Interpreter::Scope::Set(std::string_view name, Value value) {
  if (Value* existing = Find(name)) {
    *existing = std::move(value);
  } else {
    vars.emplace_back(std::string(name), std::move(value));
  }
}

Interpreter::DepthGuard::DepthGuard(Interpreter* interp) : interp_(interp) {
  if (++interp_->depth_ > kMaxRenderDepth) {
    --interp_->depth_;
    ThrowRuntime("template recursion is too deep (more than {} nested levels)", kMaxRenderDepth);
  }
}

Interpreter::Interpreter(const RenderLimits& limits, Value globals) : limits_(limits), globals_(std::move(globals)) {}

Interpreter::~Interpreter() {
  for (const auto& ns : namespaces_) ns->Clear();
}

std::string Interpreter::Render(const ast::Body& body) {
  BoundedString out = NewBuffer();
  ExecIn(body, &root_, &out);
  return std::move(out).Take();
}

// ---- Statements ----

Interpreter::Flow Interpreter::ExecIn(const ast::Body& body, Scope* scope, BoundedString* out) {
  SetFor<Scope*> in_scope(scope_, scope);
  SetFor<BoundedString*> into(out_, out);
  return ExecBody(body);
}

Interpreter::Flow Interpreter::ExecBody(const ast::Body& body) {
  for (const auto& stmt : body) {
    const Flow flow = Exec(*stmt);
    if (flow != Flow::kNormal) return flow;
  }
  return Flow::kNormal;
}

Interpreter::Flow Interpreter::Exec(const ast::Stmt& stmt) {
  DepthGuard guard(this);
  Charge(1);
  return Located(stmt.offset, [&] { return ExecStmt(stmt); });
}

Interpreter::Flow Interpreter::ExecStmt(const ast::Stmt& stmt) {
  using Kind = ast::Stmt::Kind;
  switch (stmt.kind) {
    case Kind::kText: Write(static_cast<const ast::Text&>(stmt).text); return Flow::kNormal;
    case Kind::kPrint: {
      const Value v = Eval(*static_cast<const ast::Print&>(stmt).expr);
      const size_t before = out_->size();
      AppendStr(v, out_);
      Charge((out_->size() - before) / kBytesPerWorkUnit);
      return Flow::kNormal;
    }
    case Kind::kIf: {
      const auto& node = static_cast<const ast::If&>(stmt);
      for (const auto& [test, body] : node.branches) {
        if (Eval(*test).Truthy()) return ExecBody(body);
      }
      return ExecBody(node.otherwise);
    }
    case Kind::kFor: ExecFor(static_cast<const ast::For&>(stmt)); return Flow::kNormal;
    case Kind::kSet: {
      const auto& node = static_cast<const ast::Set&>(stmt);
      Assign(*node.target, Eval(*node.value));
      return Flow::kNormal;
    }
    case Kind::kSetBlock: {
      const auto& node = static_cast<const ast::SetBlock&>(stmt);
      Flow flow;
      Value v = MakeString(Capture(node.body, &flow));
      if (node.filter) v = EvalFilter(static_cast<const ast::Filter&>(*node.filter), &v);
      Assign(*node.target, v);
      return flow;
    }
    case Kind::kMacro: {
      const auto& node = static_cast<const ast::Macro&>(stmt);
      scope_->Set(node.name, Value::FromCallable(std::make_shared<MacroFunction>(&node)));
      return Flow::kNormal;
    }
    case Kind::kFilterBlock: {
      const auto& node = static_cast<const ast::FilterBlock&>(stmt);
      Flow flow;
      const Value body = MakeString(Capture(node.body, &flow));
      Write(Str(EvalFilter(static_cast<const ast::Filter&>(*node.filter), &body)));
      return flow;
    }
    case Kind::kBreak: return Flow::kBreak;
    case Kind::kContinue: return Flow::kContinue;
  }
  return Flow::kNormal;
}

void Interpreter::ExecFor(const ast::For& node) {
  std::vector<Value> all = Iterate(Eval(*node.iterable));
  Charge(all.size());
  auto items = std::make_shared<std::vector<Value>>();
  if (node.filter) {
    // jinja2 filters first, so loop.length and loop.last count only the
    // items that pass.
    for (Value& item : all) {
      Scope scope{scope_, {}};
      SetFor<Scope*> in_scope(scope_, &scope);
      Assign(*node.target, item);
      if (Eval(*node.filter).Truthy()) items->push_back(std::move(item));
    }
  } else {
    *items = std::move(all);
  }
  if (items->empty()) {
    Scope scope{scope_, {}};
    ExecIn(node.otherwise, &scope, out_);
    return;
  }
  auto loop = std::make_shared<LoopObject>(items);
  const Value loop_value = Value::FromObject(loop);
  for (size_t i = 0; i < items->size(); ++i) {
    loop->set_index(i);
    Scope iteration{scope_, {}};
    iteration.Set("loop", loop_value);
    SetFor<Scope*> in_iteration(scope_, &iteration);
    Assign(*node.target, (*items)[i]);
    if (ExecBody(node.body) == Flow::kBreak) break;
  }
}

void Interpreter::Assign(const ast::Expr& target, const Value& value) {
  switch (target.kind) {
    case ast::Expr::Kind::kName: scope_->Set(static_cast<const ast::Name&>(target).name, value); return;
    case ast::Expr::Kind::kNamespaceRef: {
      const auto& ref = static_cast<const ast::NamespaceRef&>(target);
      const Value ns = Lookup(ref.name);
      auto* object = ns.kind() == Value::Kind::kObject ? dynamic_cast<Namespace*>(&ns.object()) : nullptr;
      if (object == nullptr) ThrowRuntime("cannot assign attribute on non-namespace object");
      object->Set(ref.attr, value);
      return;
    }
    case ast::Expr::Kind::kList: {  // a tuple of targets: unpack
      const auto& targets = static_cast<const ast::List&>(target).items;
      const std::vector<Value> values = Iterate(value);
      if (values.size() > targets.size()) {
        ThrowRuntime("too many values to unpack (expected {})", targets.size());
      }
      if (values.size() < targets.size()) {
        ThrowRuntime("not enough values to unpack (expected {}, got {})", targets.size(), values.size());
      }
      for (size_t i = 0; i < targets.size(); ++i) Assign(*targets[i], values[i]);
      return;
    }
    default: ThrowRuntime("can't assign to this expression");
  }
}

std::string Interpreter::Capture(const ast::Body& body, Flow* flow) {
  BoundedString buffer = NewBuffer();
  *flow = ExecIn(body, scope_, &buffer);
  return std::move(buffer).Take();
}

void Interpreter::Write(std::string_view text) {
  out_->Append(text);
  Charge(text.size() / kBytesPerWorkUnit);
}

Value Interpreter::CallMacro(const ast::Macro& macro, CallArgs& args) {
  DepthGuard guard(this);
  const size_t n = macro.params.size();
  if (args.positional.size() > n && !macro.uses_varargs) {
    ThrowRuntime("macro '{}' takes not more than {} argument(s)", macro.name, n);
  }
  Scope frame{&root_, {}};  // macros see the template's globals, not the caller's locals
  std::vector<bool> given(n, false);
  for (size_t i = 0; i < n && i < args.positional.size(); ++i) {
    frame.Set(macro.params[i], args.positional[i]);
    given[i] = true;
  }
  if (macro.uses_varargs) {
    std::vector<Value> extra;
    for (size_t i = n; i < args.positional.size(); ++i) extra.push_back(args.positional[i]);
    frame.Set("varargs", MakeList(std::move(extra), /*is_tuple=*/true));
  }
  DictData kwargs;
  for (auto& [key, value] : args.keyword) {
    size_t i = 0;
    while (i < n && macro.params[i] != key) ++i;
    if (i < n) {
      if (given[i]) ThrowRuntime("macro '{}' got multiple values for argument '{}'", macro.name, key);
      frame.Set(key, value);
      given[i] = true;
    } else if (macro.uses_kwargs) {
      kwargs.Set(key, value);
    } else {
      ThrowRuntime("macro '{}' takes no keyword argument '{}'", macro.name, key);
    }
  }
  if (macro.uses_kwargs) frame.Set("kwargs", MakeDict(std::move(kwargs)));
  const size_t first_default = n - macro.defaults.size();
  SetFor<Scope*> in_frame(scope_, &frame);  // defaults may refer to earlier parameters
  for (size_t i = 0; i < n; ++i) {
    if (given[i]) continue;
    frame.Set(macro.params[i], i >= first_default
                                   ? Eval(*macro.defaults[i - first_default])
                                   : Value::Undefined(fmt::format("parameter '{}' was not provided", macro.params[i])));
  }
  Flow flow;
  return MakeString(Capture(macro.body, &flow));
}

// ---- Expressions ----

Value Interpreter::Eval(const ast::Expr& expr) {
  DepthGuard guard(this);
  Charge(1);
  return Located(expr.offset, [&] { return EvalExpr(expr); });
}

Value Interpreter::EvalExpr(const ast::Expr& expr) {
  using Kind = ast::Expr::Kind;
  switch (expr.kind) {
    case Kind::kConst: return static_cast<const ast::Const&>(expr).value;
    case Kind::kName: return Lookup(static_cast<const ast::Name&>(expr).name);
    case Kind::kGetAttr: {
      const auto& node = static_cast<const ast::GetAttr&>(expr);
      return GetAttribute(Eval(*node.object), node.name);
    }
    case Kind::kGetItem: return EvalGetItem(static_cast<const ast::GetItem&>(expr));
    case Kind::kList: {
      const auto& node = static_cast<const ast::List&>(expr);
      std::vector<Value> items;
      items.reserve(node.items.size());
      for (const auto& item : node.items) items.push_back(Eval(*item));
      return MakeList(std::move(items), node.is_tuple);
    }
    case Kind::kDict: {
      DictData dict;
      for (const auto& [key_expr, value_expr] : static_cast<const ast::Dict&>(expr).items) {
        Value key = Eval(*key_expr);
        dict.Set(std::move(key), Eval(*value_expr));
      }
      return MakeDict(std::move(dict));
    }
    case Kind::kUnary: {
      const auto& node = static_cast<const ast::Unary&>(expr);
      const Value operand = Eval(*node.operand);
      switch (node.op) {
        case ast::Unary::Op::kNot: return Value::Bool(!operand.Truthy());
        case ast::Unary::Op::kNeg: return Negate(operand);
        case ast::Unary::Op::kPos: return UnaryPlus(operand);
      }
      return operand;
    }
    case Kind::kBinary: {
      const auto& node = static_cast<const ast::Binary&>(expr);
      Value left = Eval(*node.left);
      // `and` and `or` give an operand, not a bool, as in Python.
      if (node.op == ast::Binary::Op::kAnd) return left.Truthy() ? Eval(*node.right) : left;
      if (node.op == ast::Binary::Op::kOr) return left.Truthy() ? left : Eval(*node.right);
      return Arithmetic(*this, node.op, left, Eval(*node.right));
    }
    case Kind::kConcat: {
      BoundedString text = NewBuffer();
      for (const auto& part : static_cast<const ast::Concat&>(expr).parts) AppendStr(Eval(*part), &text);
      return MakeString(std::move(text).Take());
    }
    case Kind::kCompare: return EvalCompare(static_cast<const ast::Compare&>(expr));
    case Kind::kCondExpr: {
      const auto& node = static_cast<const ast::CondExpr&>(expr);
      if (Eval(*node.test).Truthy()) return Eval(*node.then);
      if (node.otherwise) return Eval(*node.otherwise);
      return Value::Undefined("the inline if-expression evaluated to false and no else section was defined");
    }
    case Kind::kCall: {
      const auto& node = static_cast<const ast::Call&>(expr);
      const Value callee = Eval(*node.callee);
      CallArgs args = EvalArgs(node.args);
      return CallValue(callee, args);
    }
    case Kind::kFilter: return EvalFilter(static_cast<const ast::Filter&>(expr), nullptr);
    case Kind::kTest: return EvalTest(static_cast<const ast::Test&>(expr));
    case Kind::kSlice: ThrowRuntime("slices are only supported as subscripts");
    case Kind::kNamespaceRef: ThrowRuntime("namespace attribute references are only assignment targets");
  }
  return Value();
}

Value Interpreter::Lookup(std::string_view name) {
  for (Scope* s = scope_; s != nullptr; s = s->parent) {
    if (Value* v = s->Find(name)) return *v;
  }
  if (const Value* v = globals_.dict().Find(name)) return *v;
  return FindGlobal(name);
}

Value Interpreter::EvalCompare(const ast::Compare& node) {
  using Op = ast::Compare::Op;
  Value left = Eval(*node.first);
  for (const auto& [op, right_expr] : node.rest) {
    Value right = Eval(*right_expr);
    bool result = false;
    switch (op) {
      case Op::kEq: result = Equals(left, right); break;
      case Op::kNe: result = !Equals(left, right); break;
      case Op::kLt: result = Less(left, right); break;
      case Op::kLe: result = !Less(right, left); break;
      case Op::kGt: result = Less(right, left); break;
      case Op::kGe: result = !Less(left, right); break;
      case Op::kIn: result = Contains(right, left); break;
      case Op::kNotIn: result = !Contains(right, left); break;
    }
    if (!result) return Value::Bool(false);
    left = std::move(right);
  }
  return Value::Bool(true);
}

Value Interpreter::EvalGetItem(const ast::GetItem& node) {
  const Value object = Eval(*node.object);
  if (node.index->kind != ast::Expr::Kind::kSlice) return GetItem(object, Eval(*node.index));
  const auto& slice = static_cast<const ast::Slice&>(*node.index);
  auto bound = [&](const ast::ExprPtr& e) { return e ? Eval(*e) : Value::None(); };
  const Value start = bound(slice.start);
  const Value stop = bound(slice.stop);
  const Value step = bound(slice.step);
  return GetSlice(*this, object, start, stop, step);
}

CallArgs Interpreter::EvalArgs(const ast::Arguments& args) {
  CallArgs out;
  for (const auto& e : args.positional) out.positional.push_back(Eval(*e));
  if (args.star_args) {
    for (Value& v : Iterate(Eval(*args.star_args))) out.positional.push_back(std::move(v));
  }
  for (const auto& [name, e] : args.keyword) out.keyword.emplace_back(name, Eval(*e));
  if (args.star_kwargs) {
    const Value extra = Eval(*args.star_kwargs);
    if (extra.kind() != Value::Kind::kDict) ThrowRuntime("argument after ** must be a mapping");
    for (const auto& [name, v] : extra.dict().entries()) {
      if (!name.is_string()) ThrowRuntime("keywords must be strings");
      out.keyword.emplace_back(name.string_value(), v);
    }
  }
  return out;
}

Value Interpreter::EvalFilter(const ast::Filter& node, const Value* block_input) {
  Value input;
  if (node.input == nullptr) {
    input = *block_input;
  } else if (block_input != nullptr && node.input->kind == ast::Expr::Kind::kFilter) {
    input = EvalFilter(static_cast<const ast::Filter&>(*node.input), block_input);
  } else {
    input = Eval(*node.input);
  }
  const CallArgs args = EvalArgs(node.args);
  return ApplyFilter(node.name, input, args);
}

Value Interpreter::EvalTest(const ast::Test& node) {
  const Value input = Eval(*node.input);
  const CallArgs args = EvalArgs(node.args);
  return Value::Bool(ApplyTest(node.name, input, args));
}

// ---- Services for filters, tests, methods and functions ----

Value Interpreter::CallValue(const Value& callee, CallArgs& args) {
  if (callee.kind() == Value::Kind::kCallable) return callee.callable().Call(*this, args);
  RequireDefined(callee);
  ThrowRuntime("'{}' object is not callable", TypeName(callee));
}

Value Interpreter::ApplyFilter(std::string_view name, const Value& input, const CallArgs& args) {
  const FilterFn fn = FindFilter(name);
  if (fn == nullptr) ThrowRuntime("no filter named '{}'", name);
  return fn(*this, input, args);
}

bool Interpreter::ApplyTest(std::string_view name, const Value& input, const CallArgs& args) {
  const TestFn fn = FindTest(name);
  if (fn == nullptr) ThrowRuntime("no test named '{}'", name);
  return fn(*this, input, args);
}

void Interpreter::ChargeString(size_t bytes) {
  if (bytes > limits_.max_output_bytes)
    ThrowRuntime("text would exceed the limit of {} bytes", limits_.max_output_bytes);
  Charge(bytes / kBytesPerWorkUnit);
}

Value Interpreter::MakeString(std::string text) {
  ChargeString(text.size());
  return Value::String(std::move(text));
}

Value Interpreter::MakeMarkup(std::string text) {
  ChargeString(text.size());
  return Value::Markup(std::move(text));
}

Value Interpreter::MakeList(std::vector<Value> items, bool is_tuple) {
  if (items.size() > kMaxListLength) ThrowRuntime("list would exceed {} items", kMaxListLength);
  Charge(items.size());
  return Value::List(std::move(items), is_tuple);
}

Value Interpreter::MakeDict(DictData dict) {
  Charge(dict.size());
  return Value::Dict(std::move(dict));
}

std::string Interpreter::Str(const Value& value) {
  BoundedString out = NewBuffer();
  AppendStr(value, &out);
  return std::move(out).Take();
}

void Interpreter::Charge(uint64_t units) {
  work_ += units;
  if (work_ > limits_.max_work) ThrowRuntime("rendering exceeded the work limit ({} units)", limits_.max_work);
}

std::shared_ptr<Namespace> Interpreter::NewNamespace() {
  auto ns = std::make_shared<Namespace>();
  namespaces_.push_back(ns);
  Charge(1);
  return ns;
}

}  // namespace pagoda::chat_template
