// Renders a parsed template: executes statements, evaluates expressions over
// Values, and keeps one rendering's state (scopes, output, limits). One
// Interpreter renders once; the parsed template is shared and read-only, so
// any number of renderings can run at the same time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pagoda/chat_template/ast.h"
#include "pagoda/chat_template/bounded_string.h"
#include "pagoda/chat_template/call_args.h"
#include "pagoda/chat_template/namespace_object.h"
#include "pagoda/chat_template/render_limits.h"
#include "pagoda/chat_template/value.h"

namespace pagoda::chat_template {

class Interpreter {
 public:
  // `globals` is a dict: the template's context variables.
  Interpreter(const RenderLimits& limits, Value globals);
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Throws a TemplateError.
  std::string Render(const ast::Body& body);

  // For filters, tests, methods and global functions.
  Value CallValue(const Value& callee, CallArgs& args);
  Value ApplyFilter(std::string_view name, const Value& input, const CallArgs& args);
  bool ApplyTest(std::string_view name, const Value& input, const CallArgs& args);
  // New strings and lists, checked against the limits and charged as work.
  Value MakeString(std::string text);
  Value MakeMarkup(std::string text);
  Value MakeList(std::vector<Value> items, bool is_tuple = false);
  Value MakeDict(DictData dict);
  BoundedString NewBuffer() const { return BoundedString(limits_.max_output_bytes); }
  size_t max_string_bytes() const { return limits_.max_output_bytes; }
  // Python's str(value).
  std::string Str(const Value& value);
  void Charge(uint64_t units);
  std::shared_ptr<Namespace> NewNamespace();
  // A call of a macro the template defined: its output as a string.
  Value CallMacro(const ast::Macro& macro, CallArgs& args);

 private:
  enum class Flow { kNormal, kBreak, kContinue };

  // Variables set in one block of the template. Loop iterations and macro
  // calls get their own, so what they set stays inside, as in jinja2.
  struct Scope {
    Scope* parent;
    std::vector<std::pair<std::string, Value>> vars;

    Value* Find(std::string_view name);
    void Set(std::string_view name, Value value);
  };
  // Counts nested evaluation (statements, expressions, macro calls) and
  // bounds it, so recursion in a template cannot exhaust the native stack.
  class DepthGuard {
   public:
    explicit DepthGuard(Interpreter* interp);
    ~DepthGuard() { --interp_->depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    Interpreter* interp_;
  };

  // Runs `body` with `scope` as the innermost scope and `out` as the output.
  Flow ExecIn(const ast::Body& body, Scope* scope, BoundedString* out);
  Flow ExecBody(const ast::Body& body);
  Flow Exec(const ast::Stmt& stmt);
  Flow ExecStmt(const ast::Stmt& stmt);
  void ExecFor(const ast::For& node);
  void Assign(const ast::Expr& target, const Value& value);
  // Renders `body` into a string of its own; `flow` says how it ended.
  std::string Capture(const ast::Body& body, Flow* flow);
  void Write(std::string_view text);

  Value Eval(const ast::Expr& expr);
  Value EvalExpr(const ast::Expr& expr);
  Value Lookup(std::string_view name);
  Value EvalCompare(const ast::Compare& node);
  Value EvalGetItem(const ast::GetItem& node);
  CallArgs EvalArgs(const ast::Arguments& args);
  // A filter node; `block_input` stands in for the missing input of the
  // innermost filter of `{% set x | f %}` and `{% filter f %}`.
  Value EvalFilter(const ast::Filter& node, const Value* block_input);
  Value EvalTest(const ast::Test& node);
  // Checks a new string's size against the limits and charges for it.
  void ChargeString(size_t bytes);

  const RenderLimits& limits_;
  const Value globals_;
  Scope root_{nullptr, {}};
  Scope* scope_ = &root_;
  BoundedString* out_ = nullptr;
  uint64_t work_ = 0;
  int depth_ = 0;
  // Every namespace created, to clear them when the rendering ends.
  std::vector<std::shared_ptr<Namespace>> namespaces_;
};

}  // namespace pagoda::chat_template
