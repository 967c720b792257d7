// Parses and validates a whole GGUF file held in memory.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/formats/gguf/metadata_reader.h"
#include "pagoda/formats/gguf/tensor_info.h"

namespace pagoda::gguf {

inline constexpr uint64_t kDefaultAlignment = 32;

struct ParsedGguf {
  uint32_t version = 0;
  uint64_t alignment = kDefaultAlignment;
  uint64_t data_offset = 0;  // start of the tensor data section
  Metadata metadata;
  std::vector<TensorInfo> tensors;  // file order
  std::unordered_map<std::string_view, size_t> tensor_index;  // views into the file
};

// Everything returned points into `file`, which must outlive the result.
StatusOr<ParsedGguf> ParseGguf(std::span<const uint8_t> file);

}  // namespace pagoda::gguf
