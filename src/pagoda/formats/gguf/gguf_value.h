// GGUF metadata values: scalars, strings and arrays (of any one element
// type, arrays of arrays included). Strings and array payloads are views into
// the file's bytes, so a Value is valid only while its GgufFile lives; this
// keeps opening a model with 49152-entry vocab arrays cheap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pagoda::gguf {

// Values are the type ids stored in the file.
enum class ValueType : uint32_t {
  kUint8 = 0,
  kInt8 = 1,
  kUint16 = 2,
  kInt16 = 3,
  kUint32 = 4,
  kInt32 = 5,
  kFloat32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kUint64 = 10,
  kInt64 = 11,
  kFloat64 = 12,
};

// Whether a type id read from a file names one of the types above.
bool IsValidValueType(uint32_t id);
// "uint8", "int8", ..., "string", "array".
std::string_view ValueTypeName(ValueType type);
bool IsIntegerType(ValueType type);
bool IsFloatType(ValueType type);
// Encoded size of one value of a fixed-size type (numbers, bool); 0 for
// strings and arrays.
size_t FixedValueSize(ValueType type);

struct Value {
 public:
  // A fixed-size value (number or bool) decoded from its little-endian
  // encoding at `bytes`, which holds FixedValueSize(type) bytes.
  static Value FromFixedBytes(ValueType type, const uint8_t* bytes);
  static Value String(std::string_view s);
  // `count` elements of fixed-size type `element`, encoded back to back at `bytes`.
  static Value FixedArray(ValueType element, const uint8_t* bytes, uint64_t count);
  static Value StringArray(std::vector<std::string_view> strings);
  static Value ArrayOfArrays(std::vector<Value> arrays);

  ValueType type() const { return type_; }
  // ValueTypeName, with the element type for arrays: "array<string>".
  std::string TypeName() const;

  // Scalars. Each returns nullopt when the value is of another kind or does
  // not fit the result (a negative integer as AsUint, a uint64 above
  // INT64_MAX as AsInt).
  std::optional<uint64_t> AsUint() const;
  std::optional<int64_t> AsInt() const;
  std::optional<double> AsFloat() const;  // float types and integers
  std::optional<bool> AsBool() const;
  std::optional<std::string_view> AsString() const;

  // Arrays; these PAGODA_CHECK that the value is an array.
  ValueType element_type() const;
  uint64_t size() const;
  // Element i as a value; for arrays of arrays this copies the inner array.
  Value at(uint64_t i) const;
  // The elements of an array of strings, without copying them.
  std::span<const std::string_view> strings() const;

 private:
  ValueType type_ = ValueType::kUint8;
  ValueType element_type_ = ValueType::kUint8;  // arrays
  union {
    uint64_t u;  // unsigned integers and bool
    int64_t i;   // signed integers
    double f;    // float32 (exactly) and float64
  } scalar_ = {0};
  uint64_t count_ = 0;                      // arrays
  std::string_view string_;                 // kString
  const uint8_t* fixed_ = nullptr;          // arrays of fixed-size elements
  std::vector<std::string_view> strings_;   // arrays of strings
  std::vector<Value> arrays_;               // arrays of arrays
};

}  // namespace pagoda::gguf
