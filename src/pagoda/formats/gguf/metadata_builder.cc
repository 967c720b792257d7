#include "pagoda/formats/gguf/metadata_builder.h"

#include <cstring>

namespace pagoda::gguf {
namespace {

template <typename T>
Value Fixed(ValueType type, T v) {
  uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  return Value::FromFixedBytes(type, bytes);
}

}  // namespace

void MetadataBuilder::Set(const std::string& key, Value value) {
  for (auto& [k, v] : entries_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  entries_.emplace_back(key, std::move(value));
}

const uint8_t* MetadataBuilder::Keep(const void* bytes, size_t size) {
  const auto* p = static_cast<const uint8_t*>(bytes);
  return arrays_.emplace_back(p, p + size).data();
}

std::string_view MetadataBuilder::Keep(std::string_view s) { return strings_.emplace_back(s); }

bool MetadataBuilder::Has(std::string_view key) const {
  for (const auto& entry : entries_) {
    if (entry.first == key) return true;
  }
  return false;
}

void MetadataBuilder::SetString(const std::string& key, std::string_view value) {
  Set(key, Value::String(Keep(value)));
}
void MetadataBuilder::SetUint32(const std::string& key, uint32_t value) {
  Set(key, Fixed(ValueType::kUint32, value));
}
void MetadataBuilder::SetInt64(const std::string& key, int64_t value) { Set(key, Fixed(ValueType::kInt64, value)); }
void MetadataBuilder::SetFloat32(const std::string& key, float value) {
  Set(key, Fixed(ValueType::kFloat32, value));
}
void MetadataBuilder::SetBool(const std::string& key, bool value) {
  Set(key, Fixed(ValueType::kBool, static_cast<uint8_t>(value ? 1 : 0)));
}

void MetadataBuilder::SetStringArray(const std::string& key, const std::vector<std::string>& values) {
  std::vector<std::string_view> views;
  views.reserve(values.size());
  for (const std::string& s : values) views.push_back(Keep(s));
  Set(key, Value::StringArray(std::move(views)));
}

void MetadataBuilder::SetInt32Array(const std::string& key, const std::vector<int32_t>& values) {
  Set(key, Value::FixedArray(ValueType::kInt32, Keep(values.data(), values.size() * sizeof(int32_t)), values.size()));
}

void MetadataBuilder::SetFloat32Array(const std::string& key, const std::vector<float>& values) {
  Set(key, Value::FixedArray(ValueType::kFloat32, Keep(values.data(), values.size() * sizeof(float)), values.size()));
}

}  // namespace pagoda::gguf
