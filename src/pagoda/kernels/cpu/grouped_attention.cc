#include "pagoda/kernels/cpu/grouped_attention.h"

#include <algorithm>
#include <vector>

#include "pagoda/base/check.h"
#include "pagoda/kernels/compute_context.h"
#include "pagoda/kernels/cpu/attention_plan.h"
#include "pagoda/threading/thread_pool.h"

namespace pagoda::kernels::cpu {
namespace {

// One query row's heads of one KV head (at most kMaxGroupVectors of them)
// over the segments its position sees.
struct Unit {
  int64_t row;
  int64_t first_head;
  int32_t num_vectors;
  int32_t seq;
  int64_t kv_head;
  int64_t first_pos;
  int64_t n_ctx;
  int64_t first_segment;
  int64_t num_segments;
  int64_t partials = -1;  // offset of its partials in the shared buffer when its segments are split
};

// A unit whole (segment < 0), or one segment of a split unit.
struct Item {
  int64_t unit;
  int64_t segment;
};

// One unit per (query row, KV head, run of at most kMaxGroupVectors heads).
std::vector<Unit> PlanUnits(const std::vector<int32_t>& seq_of_row, int64_t num_heads, const KvCacheLayer& cache,
                            const AttentionBatch& batch, int64_t sliding_window) {
  const int64_t group = num_heads / cache.num_kv_heads;
  std::vector<Unit> units;
  for (int64_t row = 0; row < static_cast<int64_t>(seq_of_row.size()); ++row) {
    const int32_t s = seq_of_row[row];
    const int32_t q_begin = batch.query_start_loc[s];
    const int32_t q_len = batch.query_start_loc[s + 1] - q_begin;
    const int64_t position = batch.seq_lens[s] - q_len + (row - q_begin);
    const int64_t first_pos = FirstVisible(position, sliding_window);
    const int64_t first_segment = first_pos / kAttentionSegment;
    const int64_t num_segments = position / kAttentionSegment - first_segment + 1;
    for (int64_t kv_head = 0; kv_head < cache.num_kv_heads; ++kv_head) {
      for (int64_t h = 0; h < group; h += kMaxGroupVectors) {
        units.push_back({.row = row,
                         .first_head = kv_head * group + h,
                         .num_vectors = static_cast<int32_t>(std::min<int64_t>(kMaxGroupVectors, group - h)),
                         .seq = s,
                         .kv_head = kv_head,
                         .first_pos = first_pos,
                         .n_ctx = position + 1,
                         .first_segment = first_segment,
                         .num_segments = num_segments});
      }
    }
  }
  return units;
}

// The work items, and the units whose segments were split into items of
// their own (their partials at unit.partials in a buffer of *shared_floats).
struct ItemPlan {
  std::vector<Item> items;
  std::vector<int64_t> split_units;
  int64_t shared_floats = 0;
};

// Splitting pays for its fold pass from this many segments per unit on.
constexpr int64_t kMinSegmentsPerSplitUnit = 4;

ItemPlan PlanItems(std::vector<Unit>& units, int threads, int64_t head_dim) {
  // Few units with long contexts (decode of a few long sequences) would
  // leave threads idle: their segments become items of their own, folded
  // afterwards. Short contexts are not worth the second pass's barrier.
  int64_t segments = 0;
  for (const Unit& unit : units) segments += unit.num_segments;
  const auto num_units = static_cast<int64_t>(units.size());
  const bool split = num_units < 4 * int64_t{threads} && segments >= kMinSegmentsPerSplitUnit * num_units;
  ItemPlan plan;
  for (int64_t u = 0; u < static_cast<int64_t>(units.size()); ++u) {
    Unit& unit = units[u];
    if (!split || unit.num_segments == 1) {
      plan.items.push_back({u, -1});
      continue;
    }
    unit.partials = plan.shared_floats;
    plan.shared_floats += unit.num_segments * unit.num_vectors * PartialStride(head_dim);
    plan.split_units.push_back(u);
    for (int64_t k = 0; k < unit.num_segments; ++k) plan.items.push_back({u, k});
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

}  // namespace

void RunGroupedPagedAttention(const float* q, int64_t num_heads, const KvCacheLayer& cache,
                              const AttentionBatch& batch, const AttentionParams& params, float* out,
                              const GroupedAttentionKernel& kernel, ComputeContext& ctx) {
  const std::vector<int32_t> seq_of_row = CheckedSequenceOfRows(num_heads, cache, batch, params);
  const int64_t head_dim = cache.head_dim;
  const int64_t stride = PartialStride(head_dim);
  std::vector<Unit> units = PlanUnits(seq_of_row, num_heads, cache, batch, params.sliding_window);
  const ItemPlan plan = PlanItems(units, ctx.pool().num_threads(), head_dim);
  float* shared =
      static_cast<float*>(ctx.caller_scratch().Get(static_cast<size_t>(plan.shared_floats) * sizeof(float)));

  auto segment_args = [&](const Unit& unit, int64_t k, float* partial) {
    const int64_t segment = unit.first_segment + k;
    return AttentionSegmentArgs{
        .q = q + (unit.row * num_heads + unit.first_head) * head_dim,
        .num_vectors = unit.num_vectors,
        .k = cache.k,
        .v = cache.v,
        .f16 = cache.dtype == DType::kF16,
        .head_dim = head_dim,
        .slot_stride = cache.num_kv_heads * head_dim,
        .head_offset = unit.kv_head * head_dim,
        .block_size = cache.block_size,
        .block_table = batch.block_tables + int64_t{unit.seq} * batch.max_blocks_per_seq,
        .begin = std::max(unit.first_pos, segment * kAttentionSegment),
        .end = std::min(unit.n_ctx, (segment + 1) * kAttentionSegment),
        .scale = params.scale,
        .softcap = params.softcap,
        .partial = partial};
  };
  auto unit_out = [&](const Unit& unit) { return out + (unit.row * num_heads + unit.first_head) * head_dim; };

  Strided(ctx, static_cast<int64_t>(plan.items.size()), [&](int worker, int64_t i) {
    const Item& item = plan.items[i];
    const Unit& unit = units[item.unit];
    const int64_t unit_floats = unit.num_vectors * stride;
    if (item.segment >= 0) {
      kernel.attend_segment(segment_args(unit, item.segment, shared + unit.partials + item.segment * unit_floats));
      return;
    }
    Scratch& scratch = ctx.worker_scratch(worker);
    float* partials =
        static_cast<float*>(scratch.Get(static_cast<size_t>(unit.num_segments * unit_floats) * sizeof(float)));
    for (int64_t k = 0; k < unit.num_segments; ++k) {
      kernel.attend_segment(segment_args(unit, k, partials + k * unit_floats));
    }
    kernel.fold(partials, unit.num_segments, unit.num_vectors, head_dim, unit_out(unit));
  });
  Strided(ctx, static_cast<int64_t>(plan.split_units.size()), [&](int, int64_t i) {
    const Unit& unit = units[plan.split_units[i]];
    kernel.fold(shared + unit.partials, unit.num_segments, unit.num_vectors, head_dim, unit_out(unit));
  });
}

}  // namespace pagoda::kernels::cpu
