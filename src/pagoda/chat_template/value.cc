#include "pagoda/chat_template/value.h"

#include <algorithm>
#include <cmath>

#include "pagoda/chat_template/error.h"

namespace pagoda::chat_template {
namespace {

// Below this many keys a linear scan beats hashing.
constexpr size_t kIndexThreshold = 8;

}  // namespace

const Value* DictData::Find(std::string_view key) const {
  if (entries_.size() > kIndexThreshold) {
    std::string hash = "s";
    hash.append(key);
    auto it = index_.find(hash);
    return it == index_.end() ? nullptr : &entries_[it->second].second;
  }
  for (const auto& [k, v] : entries_) {
    if (k.is_string() && k.string_value() == key) return &v;
  }
  return nullptr;
}

const Value* DictData::Find(const Value& key) const {
  if (key.is_string()) return Find(std::string_view(key.string_value()));
  return FindHashed(HashKey(key));
}

const Value* DictData::FindHashed(const std::string& hash) const {
  if (entries_.size() > kIndexThreshold) {
    auto it = index_.find(hash);
    return it == index_.end() ? nullptr : &entries_[it->second].second;
  }
  for (const auto& [k, v] : entries_) {
    if (!k.is_string() && HashKey(k) == hash) return &v;
  }
  return nullptr;
}

void DictData::Set(std::string key, Value value) { Set(Value::String(std::move(key)), std::move(value)); }

void DictData::Set(Value key, Value value) {
  std::string hash = HashKey(key);
  depth_ = std::max(depth_, 1 + value.depth());
  if (entries_.size() > kIndexThreshold) {
    auto [it, inserted] = index_.try_emplace(std::move(hash), entries_.size());
    if (!inserted) {
      entries_[it->second].second = std::move(value);  // the first key object stays, as in Python
      return;
    }
    entries_.emplace_back(std::move(key), std::move(value));
    return;
  }
  for (auto& [k, v] : entries_) {
    const bool same = k.is_string() && key.is_string()   ? k.string_value() == key.string_value()
                      : k.is_string() || key.is_string() ? false
                                                         : HashKey(k) == hash;
    if (same) {
      v = std::move(value);
      return;
    }
  }
  entries_.emplace_back(std::move(key), std::move(value));
  if (entries_.size() > kIndexThreshold) {
    for (size_t i = 0; i < entries_.size(); ++i) index_.emplace(HashKey(entries_[i].first), i);
  }
}

Value Value::Undefined(std::string hint) {
  return Value(Storage(std::in_place_index<0>, UndefinedData{std::make_shared<const std::string>(std::move(hint))}));
}

Value Value::String(std::string s) {
  return Value(Storage(std::in_place_index<5>, std::make_shared<const StringData>(StringData{std::move(s), false})));
}

Value Value::Markup(std::string s) {
  return Value(Storage(std::in_place_index<5>, std::make_shared<const StringData>(StringData{std::move(s), true})));
}

Value Value::List(std::vector<Value> items, bool is_tuple) {
  int depth = 1;
  for (const Value& item : items) depth = std::max(depth, 1 + item.depth());
  if (depth > kMaxValueDepth) ThrowRuntime("values nest deeper than {} levels", kMaxValueDepth);
  return Value(
      Storage(std::in_place_index<6>, std::make_shared<const ListData>(ListData{std::move(items), is_tuple, depth})));
}

Value Value::Dict(DictData dict) {
  if (dict.depth() > kMaxValueDepth) ThrowRuntime("values nest deeper than {} levels", kMaxValueDepth);
  return Value(Storage(std::in_place_index<7>, std::make_shared<const DictData>(std::move(dict))));
}

Value Value::FromObject(std::shared_ptr<Object> object) {
  return Value(Storage(std::in_place_index<8>, std::move(object)));
}

Value Value::FromCallable(std::shared_ptr<const Callable> callable) {
  return Value(Storage(std::in_place_index<9>, std::move(callable)));
}

int64_t Value::int_value() const {
  return kind() == Kind::kBool ? static_cast<int64_t>(bool_value()) : std::get<3>(storage_);
}

double Value::number_value() const {
  return kind() == Kind::kFloat ? std::get<4>(storage_) : static_cast<double>(int_value());
}

const std::string& Value::undefined_hint() const {
  static const std::string kNoHint;
  const auto& hint = std::get<0>(storage_).hint;
  return hint ? *hint : kNoHint;
}

int Value::depth() const {
  switch (kind()) {
    case Kind::kList: return list().depth;
    case Kind::kDict: return dict().depth();
    default: return 0;
  }
}

bool Value::Truthy() const {
  switch (kind()) {
    case Kind::kUndefined:
    case Kind::kNone: return false;
    case Kind::kBool: return bool_value();
    case Kind::kInt: return int_value() != 0;
    case Kind::kFloat: return number_value() != 0.0;  // NaN is true, as in Python
    case Kind::kString: return !string_value().empty();
    case Kind::kList: return !list().items.empty();
    case Kind::kDict: return dict().size() != 0;
    case Kind::kObject:
    case Kind::kCallable: return true;
  }
  return false;
}

bool IsHashable(const Value& value) {
  switch (value.kind()) {
    case Value::Kind::kNone:
    case Value::Kind::kBool:
    case Value::Kind::kInt:
    case Value::Kind::kFloat:
    case Value::Kind::kString: return true;
    case Value::Kind::kList:
      return value.list().is_tuple && std::all_of(value.list().items.begin(), value.list().items.end(), IsHashable);
    default: return false;
  }
}

std::string HashKey(const Value& key) {
  switch (key.kind()) {
    case Value::Kind::kNone: return "N";
    case Value::Kind::kBool:
    case Value::Kind::kInt: return fmt::format("n{}", key.int_value());
    case Value::Kind::kFloat: {
      const double f = key.number_value();
      if (f == std::trunc(f) && std::fabs(f) < 9e18) return fmt::format("n{}", static_cast<int64_t>(f));
      return fmt::format("f{}", f);
    }
    case Value::Kind::kString: {
      std::string hash = "s";
      hash.append(key.string_value());
      return hash;
    }
    case Value::Kind::kList:
      if (key.list().is_tuple) {
        std::string hash = "t";
        for (const Value& item : key.list().items) {
          const std::string part = HashKey(item);
          hash.append(fmt::format("{}:", part.size())).append(part);
        }
        return hash;
      }
      break;
    default: break;
  }
  ThrowRuntime("unhashable type: '{}'", TypeName(key));
}

std::string_view TypeName(const Value& value) {
  switch (value.kind()) {
    case Value::Kind::kUndefined: return "Undefined";
    case Value::Kind::kNone: return "NoneType";
    case Value::Kind::kBool: return "bool";
    case Value::Kind::kInt: return "int";
    case Value::Kind::kFloat: return "float";
    case Value::Kind::kString: return value.is_markup() ? "Markup" : "str";
    case Value::Kind::kList: return value.list().is_tuple ? "tuple" : "list";
    case Value::Kind::kDict: return "dict";
    case Value::Kind::kObject: return value.object().type_name();
    case Value::Kind::kCallable: return "function";
  }
  return "object";
}

std::string MissingAttributeHint(const Value& owner, std::string_view name) {
  return fmt::format("'{} object' has no attribute '{}'", TypeName(owner), name);
}

void ThrowUndefined(const Value& value) {
  const std::string& hint = value.undefined_hint();
  ThrowRuntime("{}", hint.empty() ? std::string("undefined value") : hint);
}

}  // namespace pagoda::chat_template
