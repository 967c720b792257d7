// One tensor of a safetensors file: its bytes are used in place from the
// file's mapping, little-endian and row-major, as the format stores them.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "pagoda/formats/safetensors/dtype.h"

namespace pagoda::safetensors {

struct SafetensorsTensor {
  std::string name;
  Dtype dtype = Dtype::kU8;
  std::vector<int64_t> shape;     // outermost first, as in the header; {} for a scalar
  std::span<const uint8_t> data;  // exactly num_elements() * DtypeSize(dtype) bytes

  int64_t num_elements() const;
};

}  // namespace pagoda::safetensors
