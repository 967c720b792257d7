#include "pagoda/kernels/cpu/grouped_attention.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "pagoda/base/check.h"
#include "pagoda/kernels/compute_context.h"
#include "pagoda/kernels/cpu/attention_plan.h"
#include "pagoda/threading/thread_pool.h"

namespace pagoda::kernels::cpu {
namespace {

// Up to kMaxBlockRows consecutive query rows of one sequence, with up to
// kMaxGroupVectors heads of one KV head each, over the segments those rows
// see.
struct Block {
  int32_t seq;
  int64_t first_row;
  int32_t num_rows;
  int64_t first_position;  // the position of first_row; row r is at first_position + r
  int64_t first_head;
  int32_t num_vectors;
  int64_t kv_head;
  int64_t first_segment;  // the first row's first visible segment (the earliest)
  int64_t num_segments;   // through the last row's own segment
  int64_t partials = -1;  // offset of its partials in the shared buffer when its segments are split
};

// A block whole (segment < 0), or one segment of a split block.
struct Item {
  int64_t block;
  int64_t segment;
};

// Blocks of each sequence's rows, per KV head and run of at most
// kMaxGroupVectors heads.
std::vector<Block> PlanBlocks(const AttentionBatch& batch, int64_t num_heads, const KvCacheLayer& cache,
                              int64_t sliding_window) {
  const int64_t group = num_heads / cache.num_kv_heads;
  std::vector<Block> blocks;
  for (int32_t s = 0; s < batch.num_seqs; ++s) {
    const int32_t q_begin = batch.query_start_loc[s];
    const int32_t q_len = batch.query_start_loc[s + 1] - q_begin;
    for (int32_t r0 = 0; r0 < q_len; r0 += kMaxBlockRows) {
      const int32_t rows = std::min(kMaxBlockRows, q_len - r0);
      const int64_t first_position = batch.seq_lens[s] - q_len + r0;
      const int64_t last_position = first_position + rows - 1;
      const int64_t first_segment = FirstVisible(first_position, sliding_window) / kAttentionSegment;
      for (int64_t kv_head = 0; kv_head < cache.num_kv_heads; ++kv_head) {
        for (int64_t h = 0; h < group; h += kMaxGroupVectors) {
          blocks.push_back({.seq = s,
                            .first_row = q_begin + r0,
                            .num_rows = rows,
                            .first_position = first_position,
                            .first_head = kv_head * group + h,
                            .num_vectors = static_cast<int32_t>(std::min<int64_t>(kMaxGroupVectors, group - h)),
                            .kv_head = kv_head,
                            .first_segment = first_segment,
                            .num_segments = last_position / kAttentionSegment - first_segment + 1});
        }
      }
    }
  }
  return blocks;
}

// The work items; blocks whose segments were split into items of their own
// keep their partials at block.partials in a buffer of shared_floats (0:
// nothing was split).
struct ItemPlan {
  std::vector<Item> items;
  int64_t shared_floats = 0;
};

// Splitting pays for its shared partials from this many segments per block on:
// a decode row of the default model (3 KV heads) at 512 positions then runs
// as 6 items over 2 threads, where whole blocks put 2 heads on one thread
// and 1 on the other (+4% decode at 512 + 128 tokens; docs/performance.md).
constexpr int64_t kMinSegmentsPerSplitBlock = 2;

ItemPlan PlanItems(std::vector<Block>& blocks, int threads, int64_t head_dim) {
  // Few blocks with long contexts (decode of a few long sequences) would
  // leave threads idle: their segments become items of their own, and the
  // item that finishes a block's last segment folds them all.
  int64_t segments = 0;
  for (const Block& block : blocks) segments += block.num_segments;
  const auto num_blocks = static_cast<int64_t>(blocks.size());
  const bool split = num_blocks < 4 * int64_t{threads} && segments >= kMinSegmentsPerSplitBlock * num_blocks;
  ItemPlan plan;
  for (int64_t b = 0; b < num_blocks; ++b) {
    Block& block = blocks[b];
    if (!split || block.num_segments == 1) {
      plan.items.push_back({b, -1});
      continue;
    }
    block.partials = plan.shared_floats;
    plan.shared_floats += block.num_segments * block.num_rows * block.num_vectors * PartialStride(head_dim);
    for (int64_t k = 0; k < block.num_segments; ++k) plan.items.push_back({b, k});
  }
  return plan;
}

// The positions each row of `block` sees in its segment k, and whether k is
// the row's first segment.
struct SegmentRows {
  int64_t begins[kMaxBlockRows];
  int64_t ends[kMaxBlockRows];
  bool first[kMaxBlockRows];
};

SegmentRows RowsOfSegment(const Block& block, int64_t k, int64_t sliding_window) {
  const int64_t segment = block.first_segment + k;
  SegmentRows rows;
  for (int32_t r = 0; r < block.num_rows; ++r) {
    const int64_t position = block.first_position + r;
    const int64_t first_pos = FirstVisible(position, sliding_window);
    rows.begins[r] = std::max(first_pos, segment * kAttentionSegment);
    rows.ends[r] = std::min(position + 1, (segment + 1) * kAttentionSegment);
    rows.first[r] = first_pos / kAttentionSegment == segment;
  }
  return rows;
}

// The sequences whose far chunks the kernel prepares once for all their
// blocks (GroupedAttentionKernel::prepare_chunk): those whose rows fill
// more than one block. Each gets count chunks per KV head, [far_from,
// far_from + count * prepared_chunk), every one of them whole before its
// context's end, at byte offset `offset` (KV head h's at offset + h * count
// chunks). A block converts any other chunk itself, as without preparation.
struct PreparedSequence {
  int32_t seq;
  int64_t count;
  int64_t offset;
};

struct PreparedPlan {
  std::vector<PreparedSequence> sequences;
  std::vector<int32_t> index;  // per sequence of the batch: into `sequences`, or -1
  int64_t chunk_bytes = 0;
  int64_t bytes = 0;
};

// Prepared chunks take at most this much scratch (the default model's
// 4,000-token prompt takes 2.8 MiB).
constexpr int64_t kMaxPreparedBytes = int64_t{64} << 20;

PreparedPlan PlanPrepared(const AttentionBatch& batch, const KvCacheLayer& cache, int64_t sliding_window,
                          const GroupedAttentionKernel& kernel) {
  PreparedPlan plan;
  plan.index.assign(static_cast<size_t>(batch.num_seqs), -1);
  // A window leaves the blocks before it unread (they may already be back
  // in the pool), so only whole contexts are prepared.
  if (kernel.prepare_chunk == nullptr || sliding_window > 0) return plan;
  plan.chunk_bytes = kernel.prepared_chunk_bytes(cache.head_dim);
  const int64_t chunk_set_bytes = cache.num_kv_heads * plan.chunk_bytes;  // one chunk of every KV head
  for (int32_t s = 0; s < batch.num_seqs; ++s) {
    const int32_t q_len = batch.query_start_loc[s + 1] - batch.query_start_loc[s];
    // The first chunks only, when the whole context would not fit.
    const int64_t count = std::min(std::max<int64_t>(0, batch.seq_lens[s] - kernel.far_from) / kernel.prepared_chunk,
                                   (kMaxPreparedBytes - plan.bytes) / chunk_set_bytes);
    const int64_t bytes = count * chunk_set_bytes;
    if (q_len <= kMaxBlockRows || count == 0) continue;
    plan.index[static_cast<size_t>(s)] = static_cast<int32_t>(plan.sequences.size());
    plan.sequences.push_back({.seq = s, .count = count, .offset = plan.bytes});
    plan.bytes += bytes;
  }
  return plan;
}

// Runs fn(worker, i) for i in [0, n), worker w taking i = w, w + T, w + 2T...:
// a prompt's later rows see more positions, and striding spreads them evenly
// where contiguous ranges would not.
template <typename Fn>
void Strided(ComputeContext& ctx, int64_t n, const Fn& fn) {
  const int64_t workers = std::min<int64_t>(ctx.pool().num_threads(), n);
  ctx.pool().ParallelForWorkers(workers, [&](int worker, int64_t begin, int64_t end) {
    for (int64_t w = begin; w < end; ++w) {
      for (int64_t i = w; i < n; i += workers) fn(worker, i);
    }
  });
}

// Every chunk of the plan, converted by the kernel into `base`.
void PrepareChunks(const PreparedPlan& plan, const KvCacheLayer& cache, const AttentionBatch& batch,
                   const GroupedAttentionKernel& kernel, std::byte* base, ComputeContext& ctx) {
  const int64_t per_sequence_heads = cache.num_kv_heads;
  int64_t total = 0;
  for (const PreparedSequence& p : plan.sequences) total += p.count * per_sequence_heads;
  ctx.pool().ParallelFor(total, [&](int64_t begin, int64_t end) {
    size_t n = 0;
    int64_t first = 0;  // the flat index of sequence n's first chunk
    for (int64_t i = begin; i < end; ++i) {
      while (i >= first + plan.sequences[n].count * per_sequence_heads) {
        first += plan.sequences[n++].count * per_sequence_heads;
      }
      const PreparedSequence& p = plan.sequences[n];
      const int64_t head = (i - first) / p.count;
      const int64_t chunk = (i - first) % p.count;
      // The cache and block table only: no query rows.
      const AttentionSegmentArgs args{.q = nullptr,
                                      .q_row_stride = 0,
                                      .num_rows = 0,
                                      .num_vectors = 0,
                                      .k = cache.k,
                                      .v = cache.v,
                                      .f16 = cache.dtype == DType::kF16,
                                      .pairs = false,
                                      .head_dim = cache.head_dim,
                                      .slot_stride = cache.num_kv_heads * cache.head_dim,
                                      .head_offset = head * cache.head_dim,
                                      .block_size = cache.block_size,
                                      .block_table = batch.block_tables + int64_t{p.seq} * batch.max_blocks_per_seq,
                                      .begins = nullptr,
                                      .ends = nullptr,
                                      .scale = 0.0f,
                                      .softcap = 0.0f,
                                      .partial = nullptr};
      kernel.prepare_chunk(args, kernel.far_from + chunk * kernel.prepared_chunk,
                           base + p.offset + (head * p.count + chunk) * plan.chunk_bytes);
    }
  });
}

}  // namespace

void RunGroupedPagedAttention(const float* q, int64_t num_heads, const KvCacheLayer& cache,
                              const AttentionBatch& batch, const AttentionParams& params, float* out,
                              const GroupedAttentionKernel& kernel, ComputeContext& ctx) {
  // For its checks only: the blocks take each sequence's rows from the batch.
  CheckedSequenceOfRows(num_heads, cache, batch, params);
  const int64_t head_dim = cache.head_dim;
  const int64_t stride = PartialStride(head_dim);
  std::vector<Block> blocks = PlanBlocks(batch, num_heads, cache, params.sliding_window);
  const ItemPlan plan = PlanItems(blocks, ctx.pool().num_threads(), head_dim);
  const PreparedPlan prepared = PlanPrepared(batch, cache, params.sliding_window, kernel);
  // The split blocks' partials, then (64-byte aligned) the prepared chunks.
  const auto shared_bytes = static_cast<size_t>(plan.shared_floats) * sizeof(float);
  auto* scratch = static_cast<std::byte*>(
      ctx.caller_scratch().Get(shared_bytes + (prepared.bytes > 0 ? 64 + static_cast<size_t>(prepared.bytes) : 0)));
  float* shared = reinterpret_cast<float*>(scratch);
  std::byte* chunks = scratch + (shared_bytes + 63 - (reinterpret_cast<uintptr_t>(scratch) + shared_bytes + 63) % 64);
  if (prepared.bytes > 0) PrepareChunks(prepared, cache, batch, kernel, chunks, ctx);

  const bool pairs = cache.dtype == DType::kBF16;
  // Segment k of `block`: its kernel goes by the segment's first position.
  auto attend = [&](const Block& block, int64_t k, const SegmentRows& rows, float* partial) {
    const bool far = kernel.attend_far_segment != nullptr &&
                     (block.first_segment + k) * kAttentionSegment >= kernel.far_from;
    const auto attend_segment = far ? kernel.attend_far_segment : kernel.attend_segment;
    const int32_t p = far ? prepared.index[static_cast<size_t>(block.seq)] : -1;
    const PreparedSequence* ps = p >= 0 ? &prepared.sequences[static_cast<size_t>(p)] : nullptr;
    attend_segment({.q = q + (block.first_row * num_heads + block.first_head) * head_dim,
                    .q_row_stride = num_heads * head_dim,
                    .num_rows = block.num_rows,
                    .num_vectors = block.num_vectors,
                    .k = cache.k,
                    .v = cache.v,
                    .f16 = cache.dtype == DType::kF16,
                    .pairs = pairs,
                    .head_dim = head_dim,
                    .slot_stride = cache.num_kv_heads * head_dim,
                    .head_offset = block.kv_head * head_dim * (pairs ? cache.block_size : 1),
                    .block_size = cache.block_size,
                    .block_table = batch.block_tables + int64_t{block.seq} * batch.max_blocks_per_seq,
                    .begins = rows.begins,
                    .ends = rows.ends,
                    .scale = params.scale,
                    .softcap = params.softcap,
                    .partial = partial,
                    .prepared = ps ? chunks + ps->offset + block.kv_head * ps->count * prepared.chunk_bytes : nullptr,
                    .prepared_first = kernel.far_from,
                    .prepared_count = ps ? ps->count : 0});
  };
  // Folds segment k's partials (rows at `partial`) into each row's state.
  auto fold = [&](const Block& block, const SegmentRows& rows, const float* partial, float* states) {
    const int64_t row_floats = block.num_vectors * stride;
    for (int32_t r = 0; r < block.num_rows; ++r) {
      if (rows.begins[r] >= rows.ends[r]) continue;
      kernel.fold_step(partial + r * row_floats, rows.first[r], block.num_vectors, head_dim, states + r * row_floats);
    }
  };
  auto finish = [&](const Block& block, const float* states) {
    for (int32_t r = 0; r < block.num_rows; ++r) {
      kernel.fold_finish(states + r * block.num_vectors * stride, block.num_vectors, head_dim,
                         out + ((block.first_row + r) * num_heads + block.first_head) * head_dim);
    }
  };
  auto block_floats = [&](const Block& block) { return block.num_rows * block.num_vectors * stride; };

  // A split block's segments still to finish: the item that finishes its
  // last one folds them all, in segment order, from the shared partials
  // (acquire-release, so it sees the other threads' partials), where a
  // second pass over the pool cost a job and a barrier per layer.
  std::vector<std::atomic<int32_t>> unfinished(plan.shared_floats > 0 ? blocks.size() : 0);
  for (size_t b = 0; b < unfinished.size(); ++b) {
    unfinished[b].store(static_cast<int32_t>(blocks[b].num_segments), std::memory_order_relaxed);
  }
  Strided(ctx, static_cast<int64_t>(plan.items.size()), [&](int worker, int64_t i) {
    const Item& item = plan.items[i];
    const Block& block = blocks[item.block];
    const int64_t floats = block_floats(block);
    if (item.segment >= 0) {
      attend(block, item.segment, RowsOfSegment(block, item.segment, params.sliding_window),
             shared + block.partials + item.segment * floats);
      if (unfinished[static_cast<size_t>(item.block)].fetch_sub(1, std::memory_order_acq_rel) != 1) return;
      float* states =
          static_cast<float*>(ctx.worker_scratch(worker).Get(static_cast<size_t>(floats) * sizeof(float)));
      for (int64_t k = 0; k < block.num_segments; ++k) {
        fold(block, RowsOfSegment(block, k, params.sliding_window), shared + block.partials + k * floats, states);
      }
      finish(block, states);
      return;
    }
    float* partial =
        static_cast<float*>(ctx.worker_scratch(worker).Get(static_cast<size_t>(2 * floats) * sizeof(float)));
    float* states = partial + floats;
    for (int64_t k = 0; k < block.num_segments; ++k) {
      const SegmentRows rows = RowsOfSegment(block, k, params.sliding_window);
      attend(block, k, rows, partial);
      fold(block, rows, partial, states);
    }
    finish(block, states);
  });
}

}  // namespace pagoda::kernels::cpu
