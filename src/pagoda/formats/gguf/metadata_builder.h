// GGUF metadata built in memory rather than read from a file: a checkpoint in
// another format (a Hugging Face directory) described in GGUF's vocabulary.
// Values view strings and arrays this builder owns; its storage is stable
// under moves, so a GgufFile made from it keeps the views valid by keeping
// the builder.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pagoda/formats/gguf/gguf_value.h"

namespace pagoda::gguf {

class MetadataBuilder {
 public:
  // Each setter replaces an earlier value of the same key, keeping its place.
  void SetString(const std::string& key, std::string_view value);
  void SetUint32(const std::string& key, uint32_t value);
  void SetInt64(const std::string& key, int64_t value);
  void SetFloat32(const std::string& key, float value);
  void SetBool(const std::string& key, bool value);
  void SetStringArray(const std::string& key, const std::vector<std::string>& values);
  void SetInt32Array(const std::string& key, const std::vector<int32_t>& values);
  void SetFloat32Array(const std::string& key, const std::vector<float>& values);

  bool Has(std::string_view key) const;
  const std::vector<std::pair<std::string, Value>>& entries() const { return entries_; }

 private:
  void Set(const std::string& key, Value value);
  const uint8_t* Keep(const void* bytes, size_t size);
  std::string_view Keep(std::string_view s);

  std::vector<std::pair<std::string, Value>> entries_;
  std::deque<std::string> strings_;
  std::deque<std::vector<uint8_t>> arrays_;
};

}  // namespace pagoda::gguf
