#include "test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

namespace pagoda::gguf::testing {

std::string FixturePath(std::string_view name) {
  return std::string(PAGODA_FIXTURES_DIR) + "/gguf/" + std::string(name);
}

Bytes ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

size_t OffsetAfterString(const Bytes& bytes, std::string_view s) {
  Bytes needle;
  AppendString(needle, s);
  const auto first = std::search(bytes.begin(), bytes.end(), needle.begin(), needle.end());
  if (first == bytes.end()) {
    ADD_FAILURE() << "string '" << s << "' not found";
    return 0;
  }
  if (std::search(first + 1, bytes.end(), needle.begin(), needle.end()) != bytes.end()) {
    ADD_FAILURE() << "string '" << s << "' occurs more than once";
    return 0;
  }
  return static_cast<size_t>(first - bytes.begin()) + needle.size();
}

uint32_t GetU32(const Bytes& bytes, size_t at) {
  uint32_t v;
  std::memcpy(&v, bytes.data() + at, sizeof(v));
  return v;
}

uint64_t GetU64(const Bytes& bytes, size_t at) {
  uint64_t v;
  std::memcpy(&v, bytes.data() + at, sizeof(v));
  return v;
}

void PutU32(Bytes& bytes, size_t at, uint32_t v) { std::memcpy(bytes.data() + at, &v, sizeof(v)); }
void PutU64(Bytes& bytes, size_t at, uint64_t v) { std::memcpy(bytes.data() + at, &v, sizeof(v)); }

void AppendU32(Bytes& bytes, uint32_t v) {
  bytes.resize(bytes.size() + sizeof(v));
  PutU32(bytes, bytes.size() - sizeof(v), v);
}

void AppendU64(Bytes& bytes, uint64_t v) {
  bytes.resize(bytes.size() + sizeof(v));
  PutU64(bytes, bytes.size() - sizeof(v), v);
}

void AppendString(Bytes& bytes, std::string_view s) {
  AppendU64(bytes, s.size());
  bytes.insert(bytes.end(), s.begin(), s.end());
}

Bytes Header(uint32_t version, uint64_t tensor_count, uint64_t metadata_count) {
  Bytes bytes = {'G', 'G', 'U', 'F'};
  AppendU32(bytes, version);
  AppendU64(bytes, tensor_count);
  AppendU64(bytes, metadata_count);
  return bytes;
}

}  // namespace pagoda::gguf::testing
