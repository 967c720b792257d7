// Helpers shared by the safetensors tests: fixture paths, whole-file reads
// and writes, files built from a header string, and scratch directories.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace pagoda::safetensors::testing {

using Bytes = std::vector<uint8_t>;

// Whether `text` (an error message) contains `part`, showing both when not.
::testing::AssertionResult Contains(const std::string& text, std::string_view part);

std::string FixturePath(std::string_view name);  // under tests/fixtures/safetensors
Bytes ReadFile(const std::string& path);
void WriteFile(const std::filesystem::path& path, const Bytes& bytes);

// A file: the header's length (8 bytes, little-endian), `header`, then `data_size` zero bytes.
Bytes BuildFile(std::string_view header, size_t data_size);
// A valid file with one F32 tensor of `elements` elements per name, in order.
Bytes F32File(const std::vector<std::string>& names, size_t elements = 2);

// A fresh directory, removed with everything in it when this goes out of scope.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace pagoda::safetensors::testing
