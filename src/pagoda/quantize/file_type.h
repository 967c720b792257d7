// The file types of `llama-quantize` that Pagoda can write: a name such as
// Q4_K_M, the id GGUF stores as general.file_type, and the tensor type most
// weights get (the mix rules in type_mix.h adjust the rest).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "pagoda/tensor/dtype.h"

namespace pagoda::quantize {

// Values are llama.cpp's llama_ftype ids.
enum class FileType : uint32_t {
  kF32 = 0,
  kF16 = 1,
  kQ4_0 = 2,
  kQ4_1 = 3,
  kQ8_0 = 7,
  kQ5_0 = 8,
  kQ5_1 = 9,
  kQ2_K = 10,
  kQ3_K_M = 12,
  kQ3_K_L = 13,
  kQ4_K_S = 14,
  kQ4_K_M = 15,
  kQ5_K_S = 16,
  kQ5_K_M = 17,
  kQ6_K = 18,
  kIQ4_NL = 25,
  kIQ4_XS = 30,
  kBF16 = 32,
};

// Case-insensitive: "q4_k_m", "Q4_K_M".
std::optional<FileType> ParseFileType(std::string_view name);
std::string_view FileTypeName(FileType t);
// "F32, F16, BF16, Q4_0, ...", for error messages.
std::string SupportedFileTypeNames();
DType DefaultTensorType(FileType t);

}  // namespace pagoda::quantize
