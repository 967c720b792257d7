#include "pagoda/chat_template/operators.h"

#include <cmath>
#include <limits>

#include "pagoda/chat_template/error.h"
#include "pagoda/chat_template/generator_object.h"
#include "pagoda/chat_template/interpreter.h"
#include "pagoda/chat_template/unicode.h"
#include "pagoda/chat_template/value_format.h"

namespace pagoda::chat_template {
namespace {

using Op = ast::Binary::Op;

std::string_view OpSymbol(Op op) {
  switch (op) {
    case Op::kAdd: return "+";
    case Op::kSub: return "-";
    case Op::kMul: return "*";
    case Op::kDiv: return "/";
    case Op::kFloorDiv: return "//";
    case Op::kMod: return "%";
    case Op::kPow: return "**";
    case Op::kAnd: return "and";
    case Op::kOr: return "or";
  }
  return "?";
}

[[noreturn]] void ThrowUnsupported(Op op, const Value& a, const Value& b) {
  ThrowRuntime("unsupported operand type(s) for {}: '{}' and '{}'", OpSymbol(op), TypeName(a), TypeName(b));
}

[[noreturn]] void ThrowOverflow() { ThrowRuntime("integer overflow (Python's unbounded integers are not supported)"); }

// An int and a float compare exactly in Python; long double holds every
// int64 exactly on x86-64, and otherwise is as exact as double.
long double Exact(const Value& v) {
  return v.kind() == Value::Kind::kFloat ? static_cast<long double>(v.number_value())
                                         : static_cast<long double>(v.int_value());
}

bool SameSequenceKind(const Value& a, const Value& b) {
  return a.kind() == Value::Kind::kList && b.kind() == Value::Kind::kList && a.list().is_tuple == b.list().is_tuple;
}

// Python's float divmod: the quotient floored and the remainder with the
// divisor's sign.
std::pair<double, double> FloatDivMod(double x, double y) {
  if (y == 0.0) ThrowRuntime("float divmod()");
  double mod = std::fmod(x, y);
  double div = (x - mod) / y;
  if (mod != 0.0) {
    if ((y < 0) != (mod < 0)) {
      mod += y;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, y);
  }
  double floordiv;
  if (div != 0.0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, x / y);
  }
  return {floordiv, mod};
}

Value IntPower(int64_t base, int64_t exponent) {
  int64_t result = 1;
  while (exponent > 0) {
    if ((exponent & 1) && __builtin_mul_overflow(result, base, &result)) ThrowOverflow();
    exponent >>= 1;
    if (exponent > 0 && __builtin_mul_overflow(base, base, &base)) ThrowOverflow();
  }
  return Value::Int(result);
}

Value NumberArithmetic(Op op, const Value& a, const Value& b) {
  const bool ints = a.is_integral() && b.is_integral();
  if (ints) {
    const int64_t x = a.int_value();
    const int64_t y = b.int_value();
    int64_t r;
    switch (op) {
      case Op::kAdd:
        if (__builtin_add_overflow(x, y, &r)) ThrowOverflow();
        return Value::Int(r);
      case Op::kSub:
        if (__builtin_sub_overflow(x, y, &r)) ThrowOverflow();
        return Value::Int(r);
      case Op::kMul:
        if (__builtin_mul_overflow(x, y, &r)) ThrowOverflow();
        return Value::Int(r);
      case Op::kFloorDiv:
      case Op::kMod: {
        if (y == 0) ThrowRuntime("integer division or modulo by zero");
        if (x == std::numeric_limits<int64_t>::min() && y == -1) ThrowOverflow();
        int64_t q = x / y;
        int64_t m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) {
          m += y;
          --q;
        }
        return Value::Int(op == Op::kFloorDiv ? q : m);
      }
      case Op::kPow:
        if (y >= 0) return IntPower(x, y);
        break;  // a negative exponent gives a float
      default: break;
    }
  }
  const double x = a.number_value();
  const double y = b.number_value();
  switch (op) {
    case Op::kAdd: return Value::Float(x + y);
    case Op::kSub: return Value::Float(x - y);
    case Op::kMul: return Value::Float(x * y);
    case Op::kDiv:
      if (y == 0.0) ThrowRuntime("division by zero");
      return Value::Float(x / y);
    case Op::kFloorDiv:
      if (y == 0.0) ThrowRuntime("float floor division by zero");
      return Value::Float(FloatDivMod(x, y).first);
    case Op::kMod:
      if (y == 0.0) ThrowRuntime("float modulo");
      return Value::Float(FloatDivMod(x, y).second);
    case Op::kPow:
      if (x == 0.0 && y < 0) ThrowRuntime("0.0 cannot be raised to a negative power");
      if (x < 0 && y != std::floor(y)) ThrowRuntime("complex results of ** are not supported");
      return Value::Float(std::pow(x, y));
    default: ThrowUnsupported(op, a, b);
  }
}

std::string Concatenate(Interpreter& interp, const std::string& a, const std::string& b) {
  if (a.size() + b.size() > interp.max_string_bytes()) {
    ThrowRuntime("string would exceed the limit of {} bytes", interp.max_string_bytes());
  }
  return a + b;
}

Value Repeat(Interpreter& interp, const Value& seq, int64_t times) {
  if (seq.is_string()) {
    const std::string& s = seq.string_value();
    if (times <= 0 || s.empty()) return seq.is_markup() ? Value::Markup("") : Value::String("");
    if (static_cast<uint64_t>(times) > interp.max_string_bytes() / s.size()) {
      ThrowRuntime("string repetition would exceed the limit of {} bytes", interp.max_string_bytes());
    }
    std::string out;
    out.reserve(s.size() * times);
    for (int64_t i = 0; i < times; ++i) out += s;
    return seq.is_markup() ? interp.MakeMarkup(std::move(out)) : interp.MakeString(std::move(out));
  }
  const auto& items = seq.list().items;
  if (times <= 0 || items.empty()) return interp.MakeList({}, seq.list().is_tuple);
  if (static_cast<uint64_t>(times) > kMaxListLength / items.size()) {
    ThrowRuntime("list repetition would exceed {} items", kMaxListLength);
  }
  std::vector<Value> out;
  out.reserve(items.size() * times);
  for (int64_t i = 0; i < times; ++i) out.insert(out.end(), items.begin(), items.end());
  return interp.MakeList(std::move(out), seq.list().is_tuple);
}

}  // namespace

bool Equals(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_integral() && b.is_integral()) return a.int_value() == b.int_value();
    return Exact(a) == Exact(b);
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::kUndefined:
    case Value::Kind::kNone: return true;
    case Value::Kind::kString: return a.string_value() == b.string_value();
    case Value::Kind::kList: {
      const auto& x = a.list();
      const auto& y = b.list();
      if (x.is_tuple != y.is_tuple || x.items.size() != y.items.size()) return false;
      for (size_t i = 0; i < x.items.size(); ++i) {
        if (!Equals(x.items[i], y.items[i])) return false;
      }
      return true;
    }
    case Value::Kind::kDict: {
      const auto& x = a.dict();
      const auto& y = b.dict();
      if (x.size() != y.size()) return false;
      for (const auto& [key, value] : x.entries()) {
        const Value* other = y.Find(key);
        if (other == nullptr || !Equals(value, *other)) return false;
      }
      return true;
    }
    case Value::Kind::kObject: return a.object_ptr() == b.object_ptr();
    case Value::Kind::kCallable: return &a.callable() == &b.callable();
    default: return false;
  }
}

bool Less(const Value& a, const Value& b) {
  RequireDefined(a);
  RequireDefined(b);
  if (a.is_number() && b.is_number()) {
    if (a.is_integral() && b.is_integral()) return a.int_value() < b.int_value();
    return Exact(a) < Exact(b);
  }
  if (a.is_string() && b.is_string()) return a.string_value() < b.string_value();  // UTF-8 sorts by code point
  if (SameSequenceKind(a, b)) {
    const auto& x = a.list().items;
    const auto& y = b.list().items;
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (!Equals(x[i], y[i])) return Less(x[i], y[i]);
    }
    return x.size() < y.size();
  }
  ThrowRuntime("'<' not supported between instances of '{}' and '{}'", TypeName(a), TypeName(b));
}

bool Contains(const Value& container, const Value& item) {
  switch (container.kind()) {
    case Value::Kind::kUndefined: return false;
    case Value::Kind::kString:
      if (!item.is_string()) {
        ThrowRuntime("'in <string>' requires string as left operand, not {}", TypeName(item));
      }
      return container.string_value().find(item.string_value()) != std::string::npos;
    case Value::Kind::kList:
      for (const Value& element : container.list().items) {
        if (Equals(element, item)) return true;
      }
      return false;
    case Value::Kind::kDict: return container.dict().Find(item) != nullptr;
    case Value::Kind::kObject:
      if (dynamic_cast<const Generator*>(container.object_ptr()) != nullptr) {
        for (const Value& element : Iterate(container)) {
          if (Equals(element, item)) return true;
        }
        return false;
      }
      [[fallthrough]];
    default: ThrowRuntime("argument of type '{}' is not iterable", TypeName(container));
  }
}

Value Arithmetic(Interpreter& interp, Op op, const Value& a, const Value& b) {
  RequireDefined(a);
  RequireDefined(b);
  if (a.is_number() && b.is_number()) return NumberArithmetic(op, a, b);
  switch (op) {
    case Op::kAdd:
      if (a.is_string() && b.is_string()) {
        if (a.is_markup() || b.is_markup()) {
          // Markup + str escapes the plain side, whichever it is.
          const std::string left = a.is_markup() ? a.string_value() : EscapeHtml(a.string_value());
          const std::string right = b.is_markup() ? b.string_value() : EscapeHtml(b.string_value());
          return interp.MakeMarkup(Concatenate(interp, left, right));
        }
        return interp.MakeString(Concatenate(interp, a.string_value(), b.string_value()));
      }
      if (SameSequenceKind(a, b)) {
        std::vector<Value> items = a.list().items;
        items.insert(items.end(), b.list().items.begin(), b.list().items.end());
        return interp.MakeList(std::move(items), a.list().is_tuple);
      }
      if (a.is_string() || a.kind() == Value::Kind::kList) {
        ThrowRuntime("can only concatenate {} (not \"{}\") to {}", TypeName(a), TypeName(b), TypeName(a));
      }
      break;
    case Op::kMul:
      if ((a.is_string() || a.kind() == Value::Kind::kList) && b.is_integral()) return Repeat(interp, a, b.int_value());
      if ((b.is_string() || b.kind() == Value::Kind::kList) && a.is_integral()) return Repeat(interp, b, a.int_value());
      break;
    case Op::kMod:
      if (a.is_string()) ThrowRuntime("printf-style string formatting (%) is not supported");
      break;
    default: break;
  }
  ThrowUnsupported(op, a, b);
}

Value Negate(const Value& value) {
  RequireDefined(value);
  if (value.kind() == Value::Kind::kFloat) return Value::Float(-value.number_value());
  if (value.is_integral()) {
    if (value.int_value() == std::numeric_limits<int64_t>::min()) ThrowOverflow();
    return Value::Int(-value.int_value());
  }
  ThrowRuntime("bad operand type for unary -: '{}'", TypeName(value));
}

Value UnaryPlus(const Value& value) {
  RequireDefined(value);
  if (value.kind() == Value::Kind::kFloat) return value;
  if (value.is_integral()) return Value::Int(value.int_value());
  ThrowRuntime("bad operand type for unary +: '{}'", TypeName(value));
}

std::vector<Value> Iterate(const Value& value) {
  switch (value.kind()) {
    case Value::Kind::kUndefined: return {};
    case Value::Kind::kList: return value.list().items;
    case Value::Kind::kDict: {
      std::vector<Value> keys;
      keys.reserve(value.dict().size());
      for (const auto& [key, item] : value.dict().entries()) keys.push_back(key);
      return keys;
    }
    case Value::Kind::kString: {
      const std::string& s = value.string_value();
      std::vector<Value> chars;
      for (size_t i = 0; i < s.size();) {
        const size_t start = i;
        DecodeUtf8(s, &i);
        chars.push_back(Value::String(s.substr(start, i - start)));
      }
      return chars;
    }
    case Value::Kind::kObject:
      if (const auto* generator = dynamic_cast<const Generator*>(value.object_ptr())) return generator->Take();
      [[fallthrough]];
    default: ThrowRuntime("'{}' object is not iterable", TypeName(value));
  }
}

}  // namespace pagoda::chat_template
