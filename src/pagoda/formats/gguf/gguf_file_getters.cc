// GgufFile's typed metadata look-ups.
#include <string>

#include "pagoda/formats/gguf/gguf_file.h"

namespace pagoda::gguf {
namespace {

std::string KeyName(std::string_view key) { return "metadata key '" + std::string(key) + "'"; }

Status WrongType(std::string_view key, const Value& value, std::string_view expected) {
  return InvalidArgumentError(KeyName(key) + " has type " + value.TypeName() + ", expected " + std::string(expected));
}

// For integers AsInt() rejects: uint64 values above INT64_MAX.
Status TooLargeForInt64(const std::string& where, const Value& value) {
  return OutOfRangeError(where + " is " + std::to_string(*value.AsUint()) + ", which does not fit int64");
}

}  // namespace

StatusOr<const Value*> GgufFile::Lookup(std::string_view key) const {
  const Value* value = Find(key);
  if (value == nullptr) return NotFoundError(KeyName(key) + " not found");
  return value;
}

StatusOr<const Value*> GgufFile::LookupArray(std::string_view key, std::string_view expected) const {
  PAGODA_ASSIGN_OR_RETURN(const Value* value, Lookup(key));
  if (value->type() != ValueType::kArray) return WrongType(key, *value, expected);
  return value;
}

StatusOr<std::string> GgufFile::GetString(std::string_view key) const {
  PAGODA_ASSIGN_OR_RETURN(const Value* value, Lookup(key));
  if (auto s = value->AsString()) return std::string(*s);
  return WrongType(key, *value, "string");
}

StatusOr<uint64_t> GgufFile::GetUint(std::string_view key) const {
  PAGODA_ASSIGN_OR_RETURN(const Value* value, Lookup(key));
  if (!IsIntegerType(value->type())) return WrongType(key, *value, "an integer");
  if (auto u = value->AsUint()) return *u;
  return OutOfRangeError(KeyName(key) + " is " + std::to_string(*value->AsInt()) + ", expected a non-negative value");
}

StatusOr<int64_t> GgufFile::GetInt(std::string_view key) const {
  PAGODA_ASSIGN_OR_RETURN(const Value* value, Lookup(key));
  if (!IsIntegerType(value->type())) return WrongType(key, *value, "an integer");
  if (auto i = value->AsInt()) return *i;
  return TooLargeForInt64(KeyName(key), *value);
}

StatusOr<double> GgufFile::GetFloat(std::string_view key) const {
  PAGODA_ASSIGN_OR_RETURN(const Value* value, Lookup(key));
  if (auto f = value->AsFloat()) return *f;
  return WrongType(key, *value, "a number");
}

StatusOr<bool> GgufFile::GetBool(std::string_view key) const {
  PAGODA_ASSIGN_OR_RETURN(const Value* value, Lookup(key));
  if (auto b = value->AsBool()) return *b;
  return WrongType(key, *value, "bool");
}

StatusOr<std::vector<std::string>> GgufFile::GetStringArray(std::string_view key) const {
  constexpr std::string_view kExpected = "array<string>";
  PAGODA_ASSIGN_OR_RETURN(const Value* value, LookupArray(key, kExpected));
  if (value->element_type() != ValueType::kString) return WrongType(key, *value, kExpected);
  const auto strings = value->strings();
  return std::vector<std::string>(strings.begin(), strings.end());
}

StatusOr<std::vector<int64_t>> GgufFile::GetIntArray(std::string_view key) const {
  constexpr std::string_view kExpected = "an array of integers";
  PAGODA_ASSIGN_OR_RETURN(const Value* value, LookupArray(key, kExpected));
  if (!IsIntegerType(value->element_type())) return WrongType(key, *value, kExpected);
  std::vector<int64_t> out;
  out.reserve(value->size());
  for (uint64_t i = 0; i < value->size(); ++i) {
    const Value element = value->at(i);
    const auto v = element.AsInt();
    if (!v) return TooLargeForInt64(KeyName(key) + " element " + std::to_string(i), element);
    out.push_back(*v);
  }
  return out;
}

StatusOr<std::vector<double>> GgufFile::GetFloatArray(std::string_view key) const {
  constexpr std::string_view kExpected = "an array of numbers";
  PAGODA_ASSIGN_OR_RETURN(const Value* value, LookupArray(key, kExpected));
  const ValueType element = value->element_type();
  if (!IsFloatType(element) && !IsIntegerType(element)) return WrongType(key, *value, kExpected);
  std::vector<double> out;
  out.reserve(value->size());
  for (uint64_t i = 0; i < value->size(); ++i) out.push_back(*value->at(i).AsFloat());
  return out;
}

}  // namespace pagoda::gguf
