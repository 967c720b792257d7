#include "pagoda/kernels/cpu/attention_plan.h"

#include <algorithm>
#include <vector>

#include "pagoda/base/check.h"
#include "pagoda/kernels/compute_context.h"
#include "pagoda/kernels/cpu/kv_pairs_layout.h"
#include "pagoda/threading/thread_pool.h"

namespace pagoda::kernels::cpu {

int64_t FirstVisible(int64_t position, int64_t sliding_window) {
  return sliding_window > 0 ? std::max<int64_t>(0, position + 1 - sliding_window) : 0;
}

std::vector<int32_t> CheckedSequenceOfRows(int64_t num_heads, const KvCacheLayer& cache, const AttentionBatch& batch,
                                           const AttentionParams& params) {
  PAGODA_CHECK(params.sliding_window >= 0 && params.softcap >= 0.0f);
  PAGODA_CHECK(cache.dtype == DType::kF32 || cache.dtype == DType::kF16 ||
               (cache.dtype == DType::kBF16 && KvPairsShapeOk(cache.head_dim, cache.block_size)));
  PAGODA_CHECK(cache.num_kv_heads > 0 && num_heads % cache.num_kv_heads == 0);
  PAGODA_CHECK(cache.block_size > 0 && cache.head_dim > 0);
  const int64_t sliding_window = params.sliding_window;
  PAGODA_CHECK(batch.num_seqs >= 0 && batch.query_start_loc[0] == 0);
  std::vector<int32_t> seq_of_row(static_cast<size_t>(batch.query_start_loc[batch.num_seqs]));
  for (int64_t s = 0; s < batch.num_seqs; ++s) {
    const int32_t begin = batch.query_start_loc[s];
    const int32_t end = batch.query_start_loc[s + 1];
    const int32_t len = batch.seq_lens[s];
    PAGODA_CHECK_MSG(begin <= end && end - begin <= len, "query rows must fit the sequence length");
    const int64_t blocks = (len + cache.block_size - 1) / cache.block_size;
    PAGODA_CHECK_MSG(blocks <= batch.max_blocks_per_seq, "sequence longer than its block table");
    const int32_t* table = batch.block_tables + s * batch.max_blocks_per_seq;
    const int64_t first_block = FirstVisible(len - (end - begin), sliding_window) / cache.block_size;
    for (int64_t b = first_block; b < blocks; ++b) {
      PAGODA_CHECK_MSG(table[b] >= 0 && table[b] < cache.num_blocks, "block id out of range");
    }
    std::fill(seq_of_row.begin() + begin, seq_of_row.begin() + end, static_cast<int32_t>(s));
  }
  return seq_of_row;
}

void RunPagedAttention(const float* q, int64_t num_heads, const KvCacheLayer& cache,
                       const AttentionBatch& batch, const AttentionParams& params, float* out, AttendRowFn attend,
                       ComputeContext* ctx) {
  const std::vector<int32_t> seq_of_row = CheckedSequenceOfRows(num_heads, cache, batch, params);
  const int64_t rows = static_cast<int64_t>(seq_of_row.size());
  const int64_t head_dim = cache.head_dim;
  const int64_t group = num_heads / cache.num_kv_heads;

  auto run = [&](Scratch& scratch, int64_t begin, int64_t end) {
    for (int64_t job = begin; job < end; ++job) {
      const int64_t row = job / num_heads;
      const int64_t head = job % num_heads;
      const int32_t s = seq_of_row[row];
      const int32_t q_begin = batch.query_start_loc[s];
      const int32_t q_len = batch.query_start_loc[s + 1] - q_begin;
      const int64_t position = batch.seq_lens[s] - q_len + (row - q_begin);
      AttendRowArgs a;
      a.q = q + (row * num_heads + head) * head_dim;
      a.k = cache.k;
      a.v = cache.v;
      a.f16 = cache.dtype == DType::kF16;
      a.pairs = cache.dtype == DType::kBF16;
      a.head_dim = head_dim;
      a.slot_stride = cache.num_kv_heads * head_dim;
      a.head_offset = head / group * head_dim * (a.pairs ? cache.block_size : 1);
      a.block_size = cache.block_size;
      a.block_table = batch.block_tables + s * batch.max_blocks_per_seq;
      a.first_pos = FirstVisible(position, params.sliding_window);
      a.n_ctx = position + 1;
      a.scale = params.scale;
      a.softcap = params.softcap;
      a.scores = static_cast<float*>(scratch.Get(static_cast<size_t>(a.n_ctx - a.first_pos) * sizeof(float)));
      a.out = out + (row * num_heads + head) * head_dim;
      attend(a);
    }
  };
  if (ctx != nullptr) {
    ctx->pool().ParallelForWorkers(rows * num_heads, [&](int worker, int64_t begin, int64_t end) {
      run(ctx->worker_scratch(worker), begin, end);
    });
  } else {
    Scratch scratch;
    run(scratch, 0, rows * num_heads);
  }
}

}  // namespace pagoda::kernels::cpu
