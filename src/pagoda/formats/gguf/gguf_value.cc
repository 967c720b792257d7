#include "pagoda/formats/gguf/gguf_value.h"

#include <cstring>
#include <limits>
#include <utility>

#include "pagoda/base/check.h"

namespace pagoda::gguf {
namespace {

template <typename T>
T Load(const uint8_t* bytes) {
  T v;
  std::memcpy(&v, bytes, sizeof(T));
  return v;
}

bool IsSignedType(ValueType type) {
  return type == ValueType::kInt8 || type == ValueType::kInt16 || type == ValueType::kInt32 ||
         type == ValueType::kInt64;
}

}  // namespace

bool IsValidValueType(uint32_t id) { return id <= static_cast<uint32_t>(ValueType::kFloat64); }

std::string_view ValueTypeName(ValueType type) {
  switch (type) {
    case ValueType::kUint8: return "uint8";
    case ValueType::kInt8: return "int8";
    case ValueType::kUint16: return "uint16";
    case ValueType::kInt16: return "int16";
    case ValueType::kUint32: return "uint32";
    case ValueType::kInt32: return "int32";
    case ValueType::kFloat32: return "float32";
    case ValueType::kBool: return "bool";
    case ValueType::kString: return "string";
    case ValueType::kArray: return "array";
    case ValueType::kUint64: return "uint64";
    case ValueType::kInt64: return "int64";
    case ValueType::kFloat64: return "float64";
  }
  return "unknown";
}

bool IsIntegerType(ValueType type) {
  switch (type) {
    case ValueType::kUint8:
    case ValueType::kInt8:
    case ValueType::kUint16:
    case ValueType::kInt16:
    case ValueType::kUint32:
    case ValueType::kInt32:
    case ValueType::kUint64:
    case ValueType::kInt64: return true;
    default: return false;
  }
}

bool IsFloatType(ValueType type) { return type == ValueType::kFloat32 || type == ValueType::kFloat64; }

size_t FixedValueSize(ValueType type) {
  switch (type) {
    case ValueType::kUint8:
    case ValueType::kInt8:
    case ValueType::kBool: return 1;
    case ValueType::kUint16:
    case ValueType::kInt16: return 2;
    case ValueType::kUint32:
    case ValueType::kInt32:
    case ValueType::kFloat32: return 4;
    case ValueType::kUint64:
    case ValueType::kInt64:
    case ValueType::kFloat64: return 8;
    case ValueType::kString:
    case ValueType::kArray: return 0;
  }
  return 0;
}

Value Value::FromFixedBytes(ValueType type, const uint8_t* bytes) {
  Value v;
  v.type_ = type;
  switch (type) {
    case ValueType::kUint8: v.scalar_.u = Load<uint8_t>(bytes); break;
    case ValueType::kInt8: v.scalar_.i = Load<int8_t>(bytes); break;
    case ValueType::kUint16: v.scalar_.u = Load<uint16_t>(bytes); break;
    case ValueType::kInt16: v.scalar_.i = Load<int16_t>(bytes); break;
    case ValueType::kUint32: v.scalar_.u = Load<uint32_t>(bytes); break;
    case ValueType::kInt32: v.scalar_.i = Load<int32_t>(bytes); break;
    case ValueType::kFloat32: v.scalar_.f = Load<float>(bytes); break;
    case ValueType::kBool: v.scalar_.u = Load<uint8_t>(bytes) != 0; break;
    case ValueType::kUint64: v.scalar_.u = Load<uint64_t>(bytes); break;
    case ValueType::kInt64: v.scalar_.i = Load<int64_t>(bytes); break;
    case ValueType::kFloat64: v.scalar_.f = Load<double>(bytes); break;
    case ValueType::kString:
    case ValueType::kArray: PAGODA_CHECK_MSG(false, "not a fixed-size type");
  }
  return v;
}

Value Value::String(std::string_view s) {
  Value v;
  v.type_ = ValueType::kString;
  v.string_ = s;
  return v;
}

Value Value::FixedArray(ValueType element, const uint8_t* bytes, uint64_t count) {
  PAGODA_CHECK(FixedValueSize(element) > 0);
  Value v;
  v.type_ = ValueType::kArray;
  v.element_type_ = element;
  v.fixed_ = bytes;
  v.count_ = count;
  return v;
}

Value Value::StringArray(std::vector<std::string_view> strings) {
  Value v;
  v.type_ = ValueType::kArray;
  v.element_type_ = ValueType::kString;
  v.count_ = strings.size();
  v.strings_ = std::move(strings);
  return v;
}

Value Value::ArrayOfArrays(std::vector<Value> arrays) {
  Value v;
  v.type_ = ValueType::kArray;
  v.element_type_ = ValueType::kArray;
  v.count_ = arrays.size();
  v.arrays_ = std::move(arrays);
  return v;
}

std::string Value::TypeName() const {
  std::string name(ValueTypeName(type_));
  if (type_ == ValueType::kArray) {
    // Appended piecewise: "<" + std::string(...) trips a GCC 12 -Wrestrict false positive.
    name += '<';
    name += ValueTypeName(element_type_);
    name += '>';
  }
  return name;
}

std::optional<uint64_t> Value::AsUint() const {
  if (!IsIntegerType(type_)) return std::nullopt;
  if (!IsSignedType(type_)) return scalar_.u;
  if (scalar_.i < 0) return std::nullopt;
  return static_cast<uint64_t>(scalar_.i);
}

std::optional<int64_t> Value::AsInt() const {
  if (!IsIntegerType(type_)) return std::nullopt;
  if (IsSignedType(type_)) return scalar_.i;
  if (scalar_.u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
  return static_cast<int64_t>(scalar_.u);
}

std::optional<double> Value::AsFloat() const {
  if (IsFloatType(type_)) return scalar_.f;
  if (auto i = AsInt()) return static_cast<double>(*i);
  if (auto u = AsUint()) return static_cast<double>(*u);
  return std::nullopt;
}

std::optional<bool> Value::AsBool() const {
  if (type_ != ValueType::kBool) return std::nullopt;
  return scalar_.u != 0;
}

std::optional<std::string_view> Value::AsString() const {
  if (type_ != ValueType::kString) return std::nullopt;
  return string_;
}

ValueType Value::element_type() const {
  PAGODA_CHECK(type_ == ValueType::kArray);
  return element_type_;
}

uint64_t Value::size() const {
  PAGODA_CHECK(type_ == ValueType::kArray);
  return count_;
}

Value Value::at(uint64_t i) const {
  PAGODA_CHECK(type_ == ValueType::kArray);
  PAGODA_CHECK(i < count_);
  switch (element_type_) {
    case ValueType::kString: return String(strings_[i]);
    case ValueType::kArray: return arrays_[i];
    default: return FromFixedBytes(element_type_, fixed_ + i * FixedValueSize(element_type_));
  }
}

std::span<const std::string_view> Value::strings() const {
  PAGODA_CHECK(type_ == ValueType::kArray && element_type_ == ValueType::kString);
  return strings_;
}

}  // namespace pagoda::gguf
