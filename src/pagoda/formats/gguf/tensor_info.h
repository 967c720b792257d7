// One tensor's entry in a GGUF file's tensor table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pagoda/tensor/dtype.h"

namespace pagoda::gguf {

struct TensorInfo {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;  // GGML order: shape[0] is the innermost (row length)
  uint64_t offset = 0;         // from the start of the data section
  uint64_t nbytes = 0;
  const uint8_t* data = nullptr;  // points into the file's bytes

  int64_t num_elements() const;
  // The shape as GGML counts it (ggml_n_dims): trailing sizes of 1 dropped,
  // one dimension at least. llama.cpp writes this shape, and only tensors
  // with two or more such dimensions are matrices.
  std::vector<int64_t> ggml_shape() const;
};

}  // namespace pagoda::gguf
