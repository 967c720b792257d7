#include "pagoda/chat_template/globals.h"

#include <array>
#include <ctime>
#include <memory>
#include <string>

#include "pagoda/chat_template/call_args.h"
#include "pagoda/chat_template/error.h"
#include "pagoda/chat_template/interpreter.h"
#include "pagoda/chat_template/operators.h"

namespace pagoda::chat_template {
namespace {

// jinja2's sandbox refuses longer ranges (MAX_RANGE).
constexpr int64_t kMaxRange = 100000;

using FunctionFn = Value (*)(Interpreter&, CallArgs&);

class Function : public Callable {
 public:
  Function(std::string_view name, FunctionFn fn) : name_(name), fn_(fn) {}
  std::string_view name() const override { return name_; }
  Value Call(Interpreter& interp, CallArgs& args) const override { return fn_(interp, args); }

 private:
  std::string_view name_;
  FunctionFn fn_;
};

int64_t RequireInt(const Value& v) {
  if (!v.is_integral()) ThrowRuntime("'{}' object cannot be interpreted as an integer", TypeName(v));
  return v.int_value();
}

Value Range(Interpreter& interp, CallArgs& args) {
  if (!args.keyword.empty()) ThrowRuntime("range() takes no keyword arguments");
  const auto& p = args.positional;
  if (p.empty() || p.size() > 3) ThrowRuntime("range expected 1 to 3 arguments, got {}", p.size());
  const int64_t start = p.size() == 1 ? 0 : RequireInt(p[0]);
  const int64_t stop = RequireInt(p.size() == 1 ? p[0] : p[1]);
  const int64_t step = p.size() == 3 ? RequireInt(p[2]) : 1;
  if (step == 0) ThrowRuntime("range() arg 3 must not be zero");
  // len(range(...)), in 128 bits since start, stop and step may be any int64.
  __int128 count = 0;
  if (step > 0 && start < stop) count = (static_cast<__int128>(stop) - start - 1) / step + 1;
  if (step < 0 && start > stop) count = (static_cast<__int128>(start) - stop - 1) / -static_cast<__int128>(step) + 1;
  if (count > kMaxRange) {
    ThrowRuntime("Range too big. The sandbox blocks ranges larger than MAX_RANGE ({}).", kMaxRange);
  }
  std::vector<Value> items;
  for (int64_t i = 0; i < static_cast<int64_t>(count); ++i) {
    items.push_back(Value::Int(static_cast<int64_t>(start + static_cast<__int128>(i) * step)));
  }
  return interp.MakeList(std::move(items));
}

// dict(mapping_or_pairs, **kwargs).
DictData DictFromArgs(std::string_view function, const CallArgs& args) {
  DictData dict;
  if (args.positional.size() > 1)
    ThrowRuntime("{} expected at most 1 argument, got {}", function, args.positional.size());
  if (!args.positional.empty()) {
    const Value& source = args.positional[0];
    if (source.kind() == Value::Kind::kDict) {
      for (const auto& [key, value] : source.dict().entries()) dict.Set(key, value);
    } else {
      for (const Value& pair : Iterate(source)) {
        if (pair.kind() != Value::Kind::kList || pair.list().items.size() != 2) {
          ThrowRuntime("{} needs a dict or (key, value) pairs", function);
        }
        dict.Set(pair.list().items[0], pair.list().items[1]);
      }
    }
  }
  for (const auto& [key, value] : args.keyword) dict.Set(key, value);
  return dict;
}

Value Dict(Interpreter& interp, CallArgs& args) { return interp.MakeDict(DictFromArgs("dict", args)); }

Value MakeNamespace(Interpreter& interp, CallArgs& args) {
  auto ns = interp.NewNamespace();
  const DictData attrs = DictFromArgs("namespace", args);
  for (const auto& [key, value] : attrs.entries()) {
    if (!key.is_string()) ThrowRuntime("namespace attribute names must be strings");
    ns->Set(key.string_value(), value);
  }
  return Value::FromObject(std::move(ns));
}

Value RaiseException(Interpreter& interp, CallArgs& args) {
  ArgBinder a("raise_exception", args, {"message"}, 1);
  throw TemplateError(TemplateError::Kind::kRaised, interp.Str(*a.Get(0)));
}

// datetime.now().strftime(format): local time, C's strftime codes.
Value StrftimeNow(Interpreter& interp, CallArgs& args) {
  ArgBinder a("strftime_now", args, {"format"}, 1);
  if (!a.Get(0)->is_string()) ThrowRuntime("strftime_now() argument must be str, not {}", TypeName(*a.Get(0)));
  const std::string& format = a.Get(0)->string_value();
  if (format.empty()) return Value::String("");
  if (format.size() > 1024) ThrowRuntime("strftime_now() format longer than 1024 bytes");
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  // strftime returns 0 when the buffer is too small; codes expand at most
  // a few dozen bytes each.
  std::string out(format.size() * 64 + 64, '\0');
  const size_t n = std::strftime(out.data(), out.size(), format.c_str(), &local);
  out.resize(n);
  return interp.MakeString(std::move(out));
}

const std::array<Function, 5> kFunctions = {
    Function("range", Range),
    Function("dict", Dict),
    Function("namespace", MakeNamespace),
    Function("raise_exception", RaiseException),
    Function("strftime_now", StrftimeNow),
};

}  // namespace

Value FindGlobal(std::string_view name) {
  for (const Function& f : kFunctions) {
    // A non-owning pointer: the functions are static.
    if (f.name() == name) return Value::FromCallable(std::shared_ptr<const Callable>(&f, [](const Callable*) {}));
  }
  return Value::Undefined(fmt::format("'{}' is undefined", name));
}

}  // namespace pagoda::chat_template
