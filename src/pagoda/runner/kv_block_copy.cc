#include "pagoda/runner/kv_block_copy.h"

#include <cstdint>
#include <cstring>

#include "pagoda/base/check.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda {

void CopyKvBlocks(std::span<const kernels::KvCacheLayer> layers, std::span<const BlockCopy> copies) {
  for (const kernels::KvCacheLayer& layer : layers) {
    const int64_t block_bytes = layer.block_size * layer.num_kv_heads * layer.head_dim * DTypeBlockBytes(layer.dtype);
    for (const BlockCopy& c : copies) {
      PAGODA_CHECK(c.src >= 0 && c.src < layer.num_blocks && c.dst >= 0 && c.dst < layer.num_blocks);
      PAGODA_CHECK(c.src != c.dst);
      for (void* arena : {layer.k, layer.v}) {
        auto* bytes = static_cast<uint8_t*>(arena);
        std::memcpy(bytes + c.dst * block_bytes, bytes + c.src * block_bytes, block_bytes);
      }
    }
  }
}

}  // namespace pagoda
