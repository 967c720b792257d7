#include "pagoda/formats/gguf/tensor_info.h"

namespace pagoda::gguf {

// The reader rejects shapes whose product overflows, so this cannot.
int64_t TensorInfo::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<int64_t> TensorInfo::ggml_shape() const {
  std::vector<int64_t> trimmed = shape;
  while (trimmed.size() > 1 && trimmed.back() == 1) trimmed.pop_back();
  return trimmed;
}

}  // namespace pagoda::gguf
