#include "pagoda/chat_template/jinja_tests.h"

#include <string>
#include <unordered_map>

#include "pagoda/chat_template/error.h"
#include "pagoda/chat_template/generator_object.h"
#include "pagoda/chat_template/interpreter.h"
#include "pagoda/chat_template/operators.h"
#include "pagoda/chat_template/unicode.h"

namespace pagoda::chat_template {
namespace {

using Kind = Value::Kind;

// Tests without arguments beyond the tested value.
void NoArgs(std::string_view name, const CallArgs& args) { ArgBinder a(name, args, {}); }

// The single argument of a comparison test.
const Value& Other(std::string_view name, const CallArgs& args) {
  if (args.positional.size() != 1 || !args.keyword.empty()) ThrowRuntime("test '{}' takes one argument", name);
  return args.positional[0];
}

template <Kind... kKinds>
bool KindTest(Interpreter&, const Value& v, const CallArgs& args) {
  NoArgs("type test", args);
  return ((v.kind() == kKinds) || ...);
}

bool Defined(Interpreter&, const Value& v, const CallArgs& args) {
  NoArgs("defined", args);
  return !v.is_undefined();
}
bool Undefined(Interpreter&, const Value& v, const CallArgs& args) {
  NoArgs("undefined", args);
  return v.is_undefined();
}
bool True(Interpreter&, const Value& v, const CallArgs& args) {
  NoArgs("true", args);
  return v.kind() == Kind::kBool && v.bool_value();
}
bool False(Interpreter&, const Value& v, const CallArgs& args) {
  NoArgs("false", args);
  return v.kind() == Kind::kBool && !v.bool_value();
}
bool Number(Interpreter&, const Value& v, const CallArgs& args) {
  NoArgs("number", args);
  return v.is_number();
}
// What has len() and [] (jinja2's Undefined has both).
bool Sequence(Interpreter&, const Value& v, const CallArgs& args) {
  NoArgs("sequence", args);
  return v.is_undefined() || v.is_string() || v.kind() == Kind::kList || v.kind() == Kind::kDict;
}
// Whatever Python can iterate: sequences and generators.
bool Iterable(Interpreter& interp, const Value& v, const CallArgs& args) {
  return Sequence(interp, v, args) || dynamic_cast<const Generator*>(v.object_ptr()) != nullptr;
}

int64_t RequireInt(std::string_view test, const Value& v) {
  RequireDefined(v);
  if (!v.is_integral()) ThrowRuntime("test '{}' needs an integer, got {}", test, TypeName(v));
  return v.int_value();
}
bool Odd(Interpreter&, const Value& v, const CallArgs& args) {
  NoArgs("odd", args);
  return RequireInt("odd", v) % 2 != 0;
}
bool Even(Interpreter&, const Value& v, const CallArgs& args) {
  NoArgs("even", args);
  return RequireInt("even", v) % 2 == 0;
}
bool DivisibleBy(Interpreter&, const Value& v, const CallArgs& args) {
  const int64_t divisor = RequireInt("divisibleby", Other("divisibleby", args));
  if (divisor == 0) ThrowRuntime("integer division or modulo by zero");
  return RequireInt("divisibleby", v) % divisor == 0;
}

// str.islower()/isupper(): some cased character, and none of the other case.
template <bool kLower>
bool CaseTest(Interpreter& interp, const Value& v, const CallArgs& args) {
  NoArgs(kLower ? "lower" : "upper", args);
  const std::string text = interp.Str(v);
  bool cased = false;
  for (size_t i = 0; i < text.size();) {
    const char32_t c = DecodeUtf8(text, &i);
    if (!IsCased(c)) continue;
    if ((kLower ? ToLower(c) : ToUpper(c)) != c) return false;
    cased = true;
  }
  return cased;
}

bool In(Interpreter&, const Value& v, const CallArgs& args) { return Contains(Other("in", args), v); }
bool Eq(Interpreter&, const Value& v, const CallArgs& args) { return Equals(v, Other("eq", args)); }
bool Ne(Interpreter&, const Value& v, const CallArgs& args) { return !Equals(v, Other("ne", args)); }
bool Lt(Interpreter&, const Value& v, const CallArgs& args) { return Less(v, Other("lt", args)); }
bool Gt(Interpreter&, const Value& v, const CallArgs& args) { return Less(Other("gt", args), v); }
bool Le(Interpreter&, const Value& v, const CallArgs& args) { return !Less(Other("le", args), v); }
bool Ge(Interpreter&, const Value& v, const CallArgs& args) { return !Less(v, Other("ge", args)); }

const std::unordered_map<std::string_view, TestFn>& Tests() {
  static const std::unordered_map<std::string_view, TestFn> tests = {
      {"defined", Defined},
      {"undefined", Undefined},
      {"none", KindTest<Kind::kNone>},
      {"boolean", KindTest<Kind::kBool>},
      {"true", True},
      {"false", False},
      {"integer", KindTest<Kind::kInt>},
      {"float", KindTest<Kind::kFloat>},
      {"number", Number},
      {"string", KindTest<Kind::kString>},
      {"mapping", KindTest<Kind::kDict>},
      {"iterable", Iterable},
      {"sequence", Sequence},
      {"callable", KindTest<Kind::kCallable>},
      {"odd", Odd},
      {"even", Even},
      {"divisibleby", DivisibleBy},
      {"lower", CaseTest<true>},
      {"upper", CaseTest<false>},
      {"in", In},
      {"eq", Eq},
      {"equalto", Eq},
      {"ne", Ne},
      {"lt", Lt},
      {"lessthan", Lt},
      {"le", Le},
      {"gt", Gt},
      {"greaterthan", Gt},
      {"ge", Ge},
  };
  return tests;
}

}  // namespace

bool HasTest(std::string_view name) { return FindTest(name) != nullptr; }

TestFn FindTest(std::string_view name) {
  const auto& tests = Tests();
  auto it = tests.find(name);
  return it == tests.end() ? nullptr : it->second;
}

}  // namespace pagoda::chat_template
