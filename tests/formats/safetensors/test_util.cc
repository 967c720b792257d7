#include "test_util.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

namespace pagoda::safetensors::testing {

::testing::AssertionResult Contains(const std::string& text, std::string_view part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

std::string FixturePath(std::string_view name) {
  return std::string(PAGODA_FIXTURES_DIR) + "/safetensors/" + std::string(name);
}

Bytes ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot read " << path;
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteFile(const std::filesystem::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  EXPECT_TRUE(out.good()) << "cannot write " << path;
}

Bytes BuildFile(std::string_view header, size_t data_size) {
  Bytes bytes;
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<uint8_t>(header.size() >> (8 * i)));
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.resize(bytes.size() + data_size, 0);
  return bytes;
}

Bytes F32File(const std::vector<std::string>& names, size_t elements) {
  nlohmann::json header = nlohmann::json::object();
  size_t offset = 0;
  for (const std::string& name : names) {
    header[name] = {{"dtype", "F32"}, {"shape", {elements}}, {"data_offsets", {offset, offset + 4 * elements}}};
    offset += 4 * elements;
  }
  return BuildFile(header.dump(), offset);
}

ScratchDir::ScratchDir() {
  static std::atomic<int> counter{0};
  path_ = std::filesystem::temp_directory_path() /
          ("pagoda_safetensors_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  std::filesystem::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace pagoda::safetensors::testing
