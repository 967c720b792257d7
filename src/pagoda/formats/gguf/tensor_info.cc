#include "pagoda/formats/gguf/tensor_info.h"

namespace pagoda::gguf {

// The reader rejects shapes whose product overflows, so this cannot.
int64_t TensorInfo::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

}  // namespace pagoda::gguf
