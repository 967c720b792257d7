// Where a BF16 KV cache keeps each element (cpu_kernels.h, KvCacheLayer):
// per block and KV head one run of block_size * head_dim bf16, K with its
// dimensions paired per position and V with its positions paired per
// dimension. A 32-dimension slice of 16 positions of K is then 16 rows of 16
// dword pairs, and a 16-dimension slice of 16 positions of V 8 rows of 16:
// exactly the B operands of AMX-BF16 tile products for scores (queries
// times K) and weighted V (probabilities times V), loaded straight from the
// cache. The f16 order ([slot][head][dimension]) needed each chunk of K
// transposed and each of V interleaved at every step, for every decode row.
#pragma once

#include <cstdint>

#include "pagoda/kernels/cpu_kernels.h"

namespace pagoda::kernels::cpu {

// The shapes the order serves: whole 32-dimension K slices and whole
// 16-position tiles.
inline bool KvPairsShapeOk(int64_t head_dim, int64_t block_size) {
  return head_dim > 0 && head_dim % 32 == 0 && block_size > 0 && block_size % 16 == 0;
}

// The first element of (block, KV head)'s run.
inline int64_t KvPairsRun(const KvCacheLayer& cache, int64_t block, int64_t kv_head) {
  return (block * cache.num_kv_heads + kv_head) * cache.block_size * cache.head_dim;
}

// Within a run: K element (position i of the block, dimension d) and V's.
inline int64_t KvPairsK(int64_t block_size, int64_t i, int64_t d) { return (d / 2 * block_size + i) * 2 + d % 2; }
inline int64_t KvPairsV(int64_t head_dim, int64_t i, int64_t d) { return (i / 2 * head_dim + d) * 2 + i % 2; }

}  // namespace pagoda::kernels::cpu
