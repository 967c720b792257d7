// The values templates compute with: Python's None, bool, int, float, str,
// list, tuple and dict, plus jinja2's Undefined, objects with attributes
// (namespace(), the loop variable) and callables (macros, methods, globals).
//
// Strings, lists and dicts are immutable and shared, so copying a Value is
// cheap; ImmutableSandboxedEnvironment forbids the mutating methods anyway.
// Namespaces are the one mutable kind: `{% set ns.x = ... %}` is how a
// template carries state out of a loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace pagoda::chat_template {

class BoundedString;
class Interpreter;
class Value;
struct CallArgs;

// Lists and dicts deeper than this are refused when built, so recursive walks
// over values (printing, tojson, comparison, destruction) stay shallow.
inline constexpr int kMaxValueDepth = 128;
// No list a template builds may hold more items than this.
inline constexpr size_t kMaxListLength = size_t{1} << 22;

struct ListData {
  std::vector<Value> items;
  bool is_tuple = false;  // prints as (a, b) and never equals a list
  int depth = 1;
};

// A dict in insertion order, as Python's dicts keep it (and tojson and
// items() show it). Keys are strings in JSON, but templates may use any
// hashable value: None, bools, numbers, strings and tuples of those.
class DictData {
 public:
  const Value* Find(std::string_view key) const;
  // Throws TypeError for an unhashable key, as Python does.
  const Value* Find(const Value& key) const;
  // Inserts at the end, or replaces the value in place when `key` exists.
  void Set(std::string key, Value value);
  void Set(Value key, Value value);

  const std::vector<std::pair<Value, Value>>& entries() const { return entries_; }
  size_t size() const;  // defined below Value: clang needs the complete type here
  int depth() const { return depth_; }

 private:
  const Value* FindHashed(const std::string& hash) const;

  std::vector<std::pair<Value, Value>> entries_;
  // By HashKey; built once a dict outgrows a linear scan.
  std::unordered_map<std::string, size_t> index_;
  int depth_ = 1;
};

// Something with attributes: namespace() objects and the loop variable.
class Object {
 public:
  virtual ~Object() = default;
  virtual std::string_view type_name() const = 0;  // Python's, e.g. "Namespace"
  // Undefined when there is no such attribute.
  virtual Value GetAttr(std::string_view name) const = 0;
  // What Python's repr() shows; `depth` bounds recursion through cycles.
  virtual void AppendRepr(BoundedString* out, int depth) const = 0;
};

class Callable {
 public:
  virtual ~Callable() = default;
  virtual std::string_view name() const = 0;
  virtual Value Call(Interpreter& interp, CallArgs& args) const = 0;
};

class Value {
 public:
  enum class Kind : uint8_t { kUndefined, kNone, kBool, kInt, kFloat, kString, kList, kDict, kObject, kCallable };

  Value() : storage_(UndefinedData{}) {}
  // `hint` says what was missing ("'x' is undefined"), for the error raised
  // when the value is used.
  static Value Undefined(std::string hint);
  static Value None() { return Value(Storage(std::in_place_index<1>, nullptr)); }
  static Value Bool(bool b) { return Value(Storage(std::in_place_index<2>, b)); }
  static Value Int(int64_t i) { return Value(Storage(std::in_place_index<3>, i)); }
  static Value Float(double f) { return Value(Storage(std::in_place_index<4>, f)); }
  static Value String(std::string s);
  static Value Markup(std::string s);
  // Throw a TemplateError when nesting would exceed kMaxValueDepth.
  static Value List(std::vector<Value> items, bool is_tuple = false);
  static Value Dict(DictData dict);
  static Value FromObject(std::shared_ptr<Object> object);
  static Value FromCallable(std::shared_ptr<const Callable> callable);

  Kind kind() const { return static_cast<Kind>(storage_.index()); }
  bool is_undefined() const { return kind() == Kind::kUndefined; }
  bool is_none() const { return kind() == Kind::kNone; }
  bool is_string() const { return kind() == Kind::kString; }
  // bool, int or float: Python's bool is an int.
  bool is_number() const { return kind() == Kind::kBool || kind() == Kind::kInt || kind() == Kind::kFloat; }
  bool is_integral() const { return kind() == Kind::kBool || kind() == Kind::kInt; }

  bool bool_value() const { return std::get<2>(storage_); }
  // The int value of a bool or int.
  int64_t int_value() const;
  // The float value of any number.
  double number_value() const;
  const std::string& string_value() const { return std::get<5>(storage_)->text; }
  // A string marked safe (markupsafe's Markup, from the safe and escape
  // filters): `+` HTML-escapes the plain strings added to it.
  bool is_markup() const { return is_string() && std::get<5>(storage_)->markup; }
  const ListData& list() const { return *std::get<6>(storage_); }
  const DictData& dict() const { return *std::get<7>(storage_); }
  Object& object() const { return *std::get<8>(storage_); }
  // The object, or nullptr for values of other kinds.
  const Object* object_ptr() const {
    const auto* object = std::get_if<8>(&storage_);
    return object != nullptr ? object->get() : nullptr;
  }
  const Callable& callable() const { return *std::get<9>(storage_); }
  const std::string& undefined_hint() const;

  // Nesting of lists and dicts; 0 for everything else.
  int depth() const;
  // Python's truth value (undefined is false).
  bool Truthy() const;

 private:
  struct UndefinedData {
    std::shared_ptr<const std::string> hint;
  };
  struct StringData {
    std::string text;
    bool markup;
  };
  using Storage = std::variant<UndefinedData, std::nullptr_t, bool, int64_t, double, std::shared_ptr<const StringData>,
                               std::shared_ptr<const ListData>, std::shared_ptr<const DictData>,
                               std::shared_ptr<Object>, std::shared_ptr<const Callable>>;
  explicit Value(Storage storage) : storage_(std::move(storage)) {}

  Storage storage_;
};

// None, bools, numbers, strings and tuples of those.
bool IsHashable(const Value& value);
// Equal for keys Python's dict treats as one (1, 1.0 and True alike); throws
inline size_t DictData::size() const { return entries_.size(); }

// TypeError for unhashable values (lists, dicts, namespaces).
std::string HashKey(const Value& key);

// Python's type name ("str", "NoneType", ...), for error messages.
std::string_view TypeName(const Value& value);

// The hint jinja2 gives for a missing attribute or item of `owner`:
// "'dict object' has no attribute 'x'".
std::string MissingAttributeHint(const Value& owner, std::string_view name);

// Throws the error jinja2 raises when an undefined value is used.
[[noreturn]] void ThrowUndefined(const Value& value);
inline void RequireDefined(const Value& value) {
  if (value.is_undefined()) ThrowUndefined(value);
}

}  // namespace pagoda::chat_template
