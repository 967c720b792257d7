// PagedAttention by KV head, flash-attention style, for the SIMD sets whose
// arithmetic need not follow GGML's order:
//  - GQA grouping: the query heads that share a KV head (up to
//    kMaxGroupVectors of them, for one query row) attend together, so each
//    K/V position is loaded once for all of them;
//  - row blocks: up to kMaxBlockRows consecutive rows of a prompt share each
//    K/V tile, so a long prompt reads its context once per block of rows
//    rather than once per row;
//  - online softmax: positions stream through in tiles, with a running
//    maximum, sum and weighted V per query vector, so scores are never
//    stored and no pass runs over the context twice;
//  - split-K: a row's context is cut into fixed segments of
//    kAttentionSegment positions (by absolute position), each giving a
//    partial (max, sum, weighted V) that a fold combines in segment order.
//    When a step has few (row, KV head) units (decode of a few sequences),
//    the segments of one unit run on different threads.
//
// Batch invariance: a query vector's result depends only on its own query,
// its sequence's K/V and its position. Segments are fixed by position, each
// is computed from scratch and the fold always runs in segment order with
// the kernel's one fold function, whether a unit's segments run on one thread
// or several; how units are grouped into jobs never changes a vector's
// arithmetic.
#pragma once

#include <cstdint>

#include "pagoda/kernels/cpu_kernels.h"

namespace pagoda::kernels {
class ComputeContext;
}

namespace pagoda::kernels::cpu {

// Query vectors attended together per row (one row's heads of one KV head).
constexpr int32_t kMaxGroupVectors = 4;
// Consecutive query rows of one sequence that share each K/V tile: a prompt's
// rows read a tile once per block instead of once per row.
constexpr int32_t kMaxBlockRows = 16;
// Positions per split-K segment; a multiple of every kernel's tile.
constexpr int64_t kAttentionSegment = 256;

// A segment's partial for each of num_vectors query vectors, laid out as
// [vector][head_dim + 2]: the running maximum score, the sum of
// exp(score - maximum), then the head_dim weighted V sums.
constexpr int64_t PartialStride(int64_t head_dim) { return head_dim + 2; }

// One segment of one block: for each row r < num_rows, query vectors
// q + r * q_row_stride + i * head_dim (i < num_vectors) attend over positions
// [begins[r], ends[r]) of their sequence (inside the segment; an empty range
// leaves the row's partials untouched). K/V element (position p, dim d) is at
// slot * slot_stride + head_offset + d, slot = block_table[p / block_size]
// * block_size + p % block_size; in a BF16 cache (pairs) at
// block_table[p / block_size] * block_size * slot_stride + head_offset +
// KvPairsK or KvPairsV(p % block_size, d) (kv_pairs_layout.h).
struct AttentionSegmentArgs {
  const float* q;
  int64_t q_row_stride;
  int32_t num_rows;
  int32_t num_vectors;
  const void* k;
  const void* v;
  bool f16;    // cache elements are f16 (else f32, or bf16 with pairs)
  bool pairs;  // a BF16 cache
  int64_t head_dim;
  int64_t slot_stride;
  int64_t head_offset;
  int64_t block_size;
  const int32_t* block_table;
  const int64_t* begins;
  const int64_t* ends;
  float scale;
  float softcap;   // 0: none
  float* partial;  // [num_rows][num_vectors][PartialStride(head_dim)]
  // The chunks that the kernel's prepare_chunk converted for this block's
  // sequence and KV head (null: none): chunk j, at prepared + j *
  // prepared_chunk_bytes(head_dim), holds positions [prepared_first + j *
  // prepared_chunk, + prepared_chunk), for j < prepared_count.
  const void* prepared = nullptr;
  int64_t prepared_first = 0;
  int64_t prepared_count = 0;
};

// A row's result never depends on the other rows of its block: each query
// vector's arithmetic is the same alone or in a block of any size.
struct GroupedAttentionKernel {
  void (*attend_segment)(const AttentionSegmentArgs& args);
  // Folds one segment's partials ([vector][stride]) into a row's running
  // state of the same layout; the first segment (first = true) just sets it.
  // A row's segments are always folded in segment order.
  void (*fold_step)(const float* partial, bool first, int32_t num_vectors, int64_t head_dim, float* state);
  // Writes each vector's normalized output to out + i * head_dim.
  void (*fold_finish)(const float* state, int32_t num_vectors, int64_t head_dim, float* out);
  // Optional: the segments from position far_from on (a multiple of
  // kAttentionSegment) run this instead, whose partials the same fold
  // takes. Which kernel computes a segment depends on its position alone,
  // so a row's bits still do not depend on its batch.
  void (*attend_far_segment)(const AttentionSegmentArgs& args) = nullptr;
  int64_t far_from = 0;
  // Optional, with attend_far_segment: a prompt's rows fill many blocks,
  // whose far segments all read the same K/V. prepare_chunk converts the
  // prepared_chunk positions from `first` of args' KV head (args' cache and
  // block table fields only) into `out` (64-byte aligned,
  // prepared_chunk_bytes(head_dim)), once per call for such a sequence, and
  // its blocks' far segments read those chunks (AttentionSegmentArgs::
  // prepared) instead of converting each. The kernel converts the chunks
  // the same way in either case, so the bits do not change.
  int64_t prepared_chunk = 0;
  int64_t (*prepared_chunk_bytes)(int64_t head_dim) = nullptr;
  void (*prepare_chunk)(const AttentionSegmentArgs& args, int64_t first, void* out) = nullptr;
};

// PagedAttention (cpu_kernels.h) with `kernel`, on ctx's pool and scratch.
void RunGroupedPagedAttention(const float* q, int64_t num_heads, const KvCacheLayer& cache,
                              const AttentionBatch& batch, const AttentionParams& params, float* out,
                              const GroupedAttentionKernel& kernel, ComputeContext& ctx);

}  // namespace pagoda::kernels::cpu
