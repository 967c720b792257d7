// PagedAttention: the reference and every SIMD set against naive contiguous
// attention in double; the sets that keep GGML's order (scalar, AVX2) against
// the reference bit for bit; and, for every set, exact batch invariance: a
// row's bits do not depend on its batch, its chunk, the thread count or
// whether its context's segments were split across threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "pagoda/kernels/compute_context.h"
#include "pagoda/kernels/cpu/amx/amx_kernels.h"
#include "pagoda/kernels/cpu/avx512/avx512_kernels.h"
#include "pagoda/kernels/cpu/grouped_attention.h"
#include "pagoda/kernels/cpu/kernel_set.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/tensor/half.h"
#include "pagoda/threading/thread_pool.h"
#include "test_util.h"

namespace pagoda::kernels {
namespace {

using testing::FirstBitDifference;
using testing::MakePagedFixture;
using testing::PagedFixture;

// Mixed batch: a decode step, a fresh prefill, a chunked prefill continuing a
// cached prefix, and a one-token sequence.
// By default 3 query heads share each KV head; the grouped kernels take a
// KV head's query heads in runs of up to 4, so other groupings cover runs of
// 1, 2 and 4.
PagedFixture Mixed(DType dtype, int64_t head_dim, uint32_t seed, int64_t num_heads = 6, int64_t num_kv_heads = 2,
                   bool bf16_values = false) {
  return MakePagedFixture(dtype, num_heads, num_kv_heads, head_dim, /*block_size=*/4,
                          /*q_lens=*/{1, 7, 5, 1}, /*seq_lens=*/{13, 7, 22, 1}, seed, bf16_values);
}

std::vector<float> RunReference(const PagedFixture& f, const AttentionParams& params) {
  std::vector<float> out(static_cast<size_t>(f.tokens() * f.num_heads * f.head_dim), -7.0f);
  reference::PagedAttention(f.q.data(), f.num_heads, f.cache, f.batch(), params, out.data());
  return out;
}

std::vector<float> RunSet(const cpu::KernelSet& set, const PagedFixture& f, const AttentionParams& params,
                          int threads) {
  ThreadPool pool(threads);
  ComputeContext ctx(set, pool);
  std::vector<float> out(static_cast<size_t>(f.tokens() * f.num_heads * f.head_dim), -7.0f);
  set.paged_attention(f.q.data(), f.num_heads, f.cache, f.batch(), params, out.data(), ctx);
  return out;
}

// The variants a layer can ask for: plain, windowed (narrower than most of
// the fixture's sequences, and not a multiple of its block size), soft-capped
// (a cap near the scores' size, so it bends them), and both.
std::vector<AttentionParams> Variants(float scale) {
  return {{.scale = scale},
          {.scale = scale, .sliding_window = 5},
          {.scale = scale, .softcap = 0.75f},
          {.scale = scale, .sliding_window = 9, .softcap = 0.5f}};
}

std::string Describe(const AttentionParams& p) {
  return "window " + std::to_string(p.sliding_window) + " softcap " + std::to_string(p.softcap);
}

// Causal attention over the sequence's contiguous K/V (as stored: f16- or
// bf16-rounded for an F16 or BF16 cache), in double: position pos sees (pos - window, pos], and
// each scaled score s becomes cap * tanh(s / cap). With `spread`, also each
// output's weighted mean of |v - output|.
std::vector<double> NaiveAttention(const PagedFixture& f, const AttentionParams& params,
                                   std::vector<double>* spread = nullptr) {
  const int64_t d = f.head_dim;
  const int64_t width = f.num_kv_heads * d;
  const int64_t group = f.num_heads / f.num_kv_heads;
  auto stored = [&](float v) {
    if (f.dtype == DType::kF16) return double{F16ToF32(F32ToF16(v))};
    if (f.dtype == DType::kBF16) return double{BF16ToF32(F32ToBF16(v))};
    return double{v};
  };
  std::vector<double> out(static_cast<size_t>(f.tokens() * f.num_heads * d));
  if (spread != nullptr) spread->assign(out.size(), 0.0);
  for (size_t s = 0; s < f.q_lens.size(); ++s) {
    for (int32_t i = 0; i < f.q_lens[s]; ++i) {
      const int64_t row = f.query_start_loc[s] + i;
      const int64_t pos = f.seq_lens[s] - f.q_lens[s] + i;
      for (int64_t h = 0; h < f.num_heads; ++h) {
        const float* q = f.q.data() + (row * f.num_heads + h) * d;
        const int64_t kvh = h / group;
        const int64_t first = params.sliding_window > 0 ? std::max<int64_t>(0, pos + 1 - params.sliding_window) : 0;
        std::vector<double> score(static_cast<size_t>(pos + 1), 0.0);
        double mx = -INFINITY;
        for (int64_t p = first; p <= pos; ++p) {
          double dot = 0.0;
          for (int64_t e = 0; e < d; ++e) dot += double{q[e]} * stored(f.k_values[s][p * width + kvh * d + e]);
          score[p] = dot * params.scale;
          if (params.softcap > 0.0f) score[p] = params.softcap * std::tanh(score[p] / params.softcap);
          mx = std::max(mx, score[p]);
        }
        double total = 0.0;
        for (int64_t p = first; p <= pos; ++p) total += (score[p] = std::exp(score[p] - mx));
        for (int64_t e = 0; e < d; ++e) {
          double acc = 0.0;
          for (int64_t p = first; p <= pos; ++p) acc += score[p] * stored(f.v_values[s][p * width + kvh * d + e]);
          const double mean = acc / total;
          out[(row * f.num_heads + h) * d + e] = mean;
          if (spread == nullptr) continue;
          double deviation = 0.0;
          for (int64_t p = first; p <= pos; ++p) {
            deviation += score[p] * std::fabs(stored(f.v_values[s][p * width + kvh * d + e]) - mean);
          }
          (*spread)[(row * f.num_heads + h) * d + e] = deviation / total;
        }
      }
    }
  }
  return out;
}

TEST(ReferenceAttentionTest, MatchesNaiveContiguousAttention) {
  for (DType dtype : {DType::kF32, DType::kF16}) {
    for (int64_t head_dim : {64, 20}) {
      const PagedFixture f = Mixed(dtype, head_dim, 5);
      for (const AttentionParams& params : Variants(1.0f / std::sqrt(static_cast<float>(head_dim)))) {
        const std::vector<float> got = RunReference(f, params);
        const std::vector<double> want = NaiveAttention(f, params);
        for (size_t e = 0; e < want.size(); ++e) {
          ASSERT_NEAR(got[e], want[e], 2e-5)
              << DTypeName(dtype) << " head_dim " << head_dim << " " << Describe(params) << " at " << e;
        }
      }
    }
  }
}

TEST(ReferenceAttentionTest, SinglePositionReturnsItsValue) {
  // With one position the softmax weight is exactly 1.
  const PagedFixture f = MakePagedFixture(DType::kF32, 2, 1, 16, 8, {1}, {1}, 3);
  const std::vector<float> got = RunReference(f, {.scale = 0.25f});
  for (int64_t h = 0; h < 2; ++h) {
    for (int64_t e = 0; e < 16; ++e) EXPECT_EQ(got[h * 16 + e], f.v_values[0][e]);
  }
}

// The sets with GGML's order reproduce the reference bit for bit; the
// AVX-512 sets (grouped by KV head, online softmax) agree within this.
constexpr double kGroupedTolerance = 3e-5;

bool KeepsGgmlOrder(const cpu::KernelSet& set) {
  return std::string(set.name) == "scalar" || std::string(set.name) == "avx2";
}

// The avx512bf16 and amx sets attend in bf16 past their first positions
// (kernel_set.cc), which these fixtures mostly do not reach; so their bf16
// kernels (VDPBF16PS, AMX-BF16 tiles) are also tested from position 0 on,
// as sets of their own: the tiles with their prepared chunks (for prompts
// of more than one block of rows), as the amx set runs them past 256.
template <const cpu::GroupedAttentionKernel& kKernel>
void FarKernelFromTheStart(const float* q, int64_t num_heads, const KvCacheLayer& cache, const AttentionBatch& batch,
                           const AttentionParams& params, float* out, ComputeContext& ctx) {
  cpu::RunGroupedPagedAttention(q, num_heads, cache, batch, params, out, kKernel, ctx);
}
constexpr cpu::GroupedAttentionKernel kBf16FromTheStart = {.attend_segment = cpu::avx512::AttendSegmentBf16,
                                                           .fold_step = cpu::avx512::FoldStep,
                                                           .fold_finish = cpu::avx512::FoldFinish};
constexpr cpu::GroupedAttentionKernel kTilesFromTheStart = {.attend_segment = cpu::amx::AttendSegmentTiles,
                                                            .fold_step = cpu::avx512::FoldStep,
                                                            .fold_finish = cpu::avx512::FoldFinish,
                                                            .attend_far_segment = cpu::amx::AttendSegmentTiles,
                                                            .far_from = 0,
                                                            .prepared_chunk = cpu::amx::kAttentionChunk,
                                                            .prepared_chunk_bytes = cpu::amx::PreparedChunkBytes,
                                                            .prepare_chunk = cpu::amx::PrepareChunk};

// Every supported set, and the bf16 kernels from position 0 where the CPU has them.
std::vector<const cpu::KernelSet*> AttentionSets() {
  static const std::vector<const cpu::KernelSet*> sets = [] {
    std::vector<const cpu::KernelSet*> out(cpu::SupportedKernelSets().begin(), cpu::SupportedKernelSets().end());
    if (const cpu::KernelSet* bf16 = cpu::FindSupportedKernelSet("avx512bf16")) {
      static cpu::KernelSet everywhere = *bf16;
      everywhere.name = "avx512bf16 attending in bf16 from position 0";
      everywhere.paged_attention = FarKernelFromTheStart<kBf16FromTheStart>;
      out.push_back(&everywhere);
    }
    if (const cpu::KernelSet* amx = cpu::FindSupportedKernelSet("amx")) {
      static cpu::KernelSet everywhere = *amx;
      everywhere.name = "amx attending on tiles from position 0";
      everywhere.paged_attention = FarKernelFromTheStart<kTilesFromTheStart>;
      out.push_back(&everywhere);
    }
    return out;
  }();
  return sets;
}

// The bf16 kernels round q, K, V and the softmax's probabilities to bf16
// (attention_bf16_avx512.cc, amx/attention_amx.cc), so the sets that use it are checked on
// fixtures whose values bf16 holds exactly: then only the probabilities'
// rounding separates it from exact attention. Rounding to bf16's 8
// significant bits moves each weight w by at most eps = 2^-8 of itself, and
// the output sum(w v) / sum(w) by at most eps / (1 - eps) times the weighted
// mean of |v - output| (the spread that NaiveAttention reports).
bool RoundsToBf16(const cpu::KernelSet& set) {
  return testing::RunsBf16Dots(set.name) || std::string_view(set.name).starts_with("avx512bf16") ||
         std::string_view(set.name).starts_with("amx");
}
constexpr double kBf16Epsilon = 1.0 / 256;
double NaiveTolerance(const cpu::KernelSet& set, double spread) {
  return kGroupedTolerance + (RoundsToBf16(set) ? kBf16Epsilon / (1 - kBf16Epsilon) * spread : 0.0);
}

// Exact attention on a fixture's two versions, plain and with bf16-exact
// values: a set is checked on the version it suits (RoundsToBf16), within
// its tolerance for each element.
class NaiveCheck {
 public:
  NaiveCheck(const PagedFixture& plain, const PagedFixture& bf16, const AttentionParams& params)
      : plain_(plain), bf16_(bf16), naive_plain_(NaiveAttention(plain, params)),
        naive_bf16_(NaiveAttention(bf16, params, &spread_)) {}

  const PagedFixture& Fixture(const cpu::KernelSet& set) const { return RoundsToBf16(set) ? bf16_ : plain_; }
  const std::vector<double>& Naive(const cpu::KernelSet& set) const {
    return RoundsToBf16(set) ? naive_bf16_ : naive_plain_;
  }
  double Tolerance(const cpu::KernelSet& set, size_t e) const { return NaiveTolerance(set, spread_[e]); }

 private:
  const PagedFixture& plain_;
  const PagedFixture& bf16_;
  std::vector<double> spread_;
  std::vector<double> naive_plain_, naive_bf16_;
};

// The caches the invariance tests run on: the given F16 (or F32) fixture's
// kind on every set, the bf16 kernels from position 0 included; and a BF16
// cache (kv_pairs_layout.h) in blocks of 16 and 32 on every supported set
// (the amx set on tiles at every position, the others through the
// reference's rows).
struct CacheKind {
  DType dtype;
  int64_t block_size;
  std::vector<const cpu::KernelSet*> sets;
};
std::vector<CacheKind> CacheKinds(DType dtype, int64_t block_size) {
  const std::vector<const cpu::KernelSet*> supported(cpu::SupportedKernelSets().begin(),
                                                     cpu::SupportedKernelSets().end());
  return {{dtype, block_size, AttentionSets()}, {DType::kBF16, 16, supported}, {DType::kBF16, 32, supported}};
}
std::string Describe(const CacheKind& kind) {
  return std::string(DTypeName(kind.dtype)) + " blocks of " + std::to_string(kind.block_size);
}

// A BF16 cache on every supported set, against exact attention (bf16-exact
// values: the cache then stores them as they are), with the shapes the
// pairs order takes (head sizes that are multiples of 32) and a prompt of
// 40 rows that crosses a split-K segment, so that a block's 48 query
// vectors fill three groups of 16 tile rows. The sets other than amx read
// it through the reference's row kernel.
TEST(FastAttentionTest, Bf16CacheEverySetMatchesNaiveAttentionAndThreadCountChangesNoBit) {
  struct Shape {
    int64_t head_dim, num_heads, num_kv_heads;
  };
  const Shape shapes[] = {{64, 6, 2}, {64, 3, 3}, {64, 12, 2}, {128, 6, 2}, {32, 4, 2}};
  for (int64_t block_size : {16, 32}) {
    for (const Shape& shape : shapes) {
      const int64_t head_dim = shape.head_dim;
      const PagedFixture f = MakePagedFixture(DType::kBF16, shape.num_heads, shape.num_kv_heads, head_dim, block_size,
                                              {1, 7, 5, 1, 40, 1}, {13, 7, 22, 1, 300, 290},
                                              static_cast<uint32_t>(head_dim + block_size), true);
      for (const AttentionParams& params : Variants(1.0f / std::sqrt(static_cast<float>(head_dim)))) {
        std::vector<double> spread;
        const std::vector<double> naive = NaiveAttention(f, params, &spread);
        for (const cpu::KernelSet* set : cpu::SupportedKernelSets()) {
          const std::vector<float> one_thread = RunSet(*set, f, params, 1);
          for (size_t e = 0; e < naive.size(); ++e) {
            ASSERT_NEAR(one_thread[e], naive[e], NaiveTolerance(*set, spread[e]))
                << set->name << " blocks of " << block_size << " head_dim " << head_dim << " heads "
                << shape.num_heads << "/" << shape.num_kv_heads << " " << Describe(params) << " at " << e;
          }
          for (int threads : {2, 3}) {
            const std::vector<float> got = RunSet(*set, f, params, threads);
            ASSERT_EQ(FirstBitDifference(got.data(), one_thread.data(), static_cast<int64_t>(got.size())), -1)
                << set->name << " blocks of " << block_size << " head_dim " << head_dim << " threads " << threads
                << " " << Describe(params);
          }
        }
      }
    }
  }
}

TEST(FastAttentionTest, EverySetMatchesNaiveAttentionAndThreadCountChangesNoBit) {
  // Head sizes with their own compiled kernels (64, 128) and others, with and
  // without a tail of fewer than 16 dimensions; groups of 3 query heads per
  // KV head, and (at 64) of 1, 2 and 6 (a run of 4 and one of 2).
  struct Shape {
    int64_t head_dim, num_heads, num_kv_heads;
  };
  const Shape shapes[] = {{64, 6, 2},  {64, 3, 3},  {64, 4, 2}, {64, 12, 2}, {128, 6, 2},
                          {20, 6, 2},  {72, 6, 2},  {8, 6, 2},  {160, 6, 2}};
  for (DType dtype : {DType::kF32, DType::kF16}) {
    for (const Shape& shape : shapes) {
      const int64_t head_dim = shape.head_dim;
      const PagedFixture plain =
          Mixed(dtype, head_dim, static_cast<uint32_t>(head_dim), shape.num_heads, shape.num_kv_heads);
      const PagedFixture bf16 =
          Mixed(dtype, head_dim, static_cast<uint32_t>(head_dim), shape.num_heads, shape.num_kv_heads, true);
      for (const AttentionParams& params : Variants(1.0f / std::sqrt(static_cast<float>(head_dim)))) {
        const std::vector<float> reference = RunReference(plain, params);
        const NaiveCheck check(plain, bf16, params);
        for (const cpu::KernelSet* set : AttentionSets()) {
          const PagedFixture& f = check.Fixture(*set);
          const std::vector<double>& naive = check.Naive(*set);
          const std::vector<float> one_thread = RunSet(*set, f, params, 1);
          for (size_t e = 0; e < naive.size(); ++e) {
            ASSERT_NEAR(one_thread[e], naive[e], check.Tolerance(*set, e))
                << set->name << " " << DTypeName(dtype) << " head_dim " << head_dim << " heads " << shape.num_heads
                << "/" << shape.num_kv_heads << " " << Describe(params);
          }
          if (KeepsGgmlOrder(*set)) {
            ASSERT_EQ(FirstBitDifference(one_thread.data(), reference.data(), static_cast<int64_t>(reference.size())),
                      -1)
                << set->name << " " << DTypeName(dtype) << " head_dim " << head_dim << " " << Describe(params);
          }
          for (int threads : {2, 3}) {
            const std::vector<float> got = RunSet(*set, f, params, threads);
            ASSERT_EQ(FirstBitDifference(got.data(), one_thread.data(), static_cast<int64_t>(got.size())), -1)
                << set->name << " " << DTypeName(dtype) << " head_dim " << head_dim << " threads " << threads
                << " " << Describe(params);
          }
        }
      }
    }
  }
}

TEST(FastAttentionTest, LongDecodeContext) {
  const PagedFixture plain = MakePagedFixture(DType::kF16, 9, 3, 64, 16, {1, 1}, {512, 300}, 17);
  const PagedFixture bf16 = MakePagedFixture(DType::kF16, 9, 3, 64, 16, {1, 1}, {512, 300}, 17, true);
  for (const AttentionParams& params : {AttentionParams{.scale = 0.125f},
                                        AttentionParams{.scale = 0.125f, .sliding_window = 100, .softcap = 1.0f}}) {
    const std::vector<float> want = RunReference(plain, params);
    const NaiveCheck check(plain, bf16, params);
    for (const cpu::KernelSet* set : AttentionSets()) {
      const std::vector<double>& naive = check.Naive(*set);
      const std::vector<float> got = RunSet(*set, check.Fixture(*set), params, 2);
      if (KeepsGgmlOrder(*set)) {
        ASSERT_EQ(FirstBitDifference(got.data(), want.data(), static_cast<int64_t>(want.size())), -1)
            << set->name << " " << Describe(params);
      }
      for (size_t e = 0; e < naive.size(); ++e) {
        ASSERT_NEAR(got[e], naive[e], check.Tolerance(*set, e)) << set->name << " " << Describe(params) << " at " << e;
      }
    }
  }
}

// A decode row over a long context (several split-K segments) gives the same
// bits whether it runs alone (its segments split over the threads) or among
// many rows (each unit whole on one thread), and as the last row of a prefill.
TEST(FastAttentionTest, LongContextRowIsTheSameSplitOrWhole) {
  for (const CacheKind& kind : CacheKinds(DType::kF16, 16)) {
    const PagedFixture f = MakePagedFixture(kind.dtype, 8, 2, 64, kind.block_size, {1, 40}, {1000, 700}, 41);
    const int64_t width = f.num_heads * f.head_dim;
    for (const AttentionParams& params : Variants(0.125f)) {
      for (const cpu::KernelSet* set : kind.sets) {
        const std::vector<float> batched = RunSet(*set, f, params, 2);
        for (size_t s = 0; s < 2; ++s) {
          // The sequence's last row alone, as a decode step.
          const int32_t qsl[2] = {0, 1};
          const AttentionBatch alone{1, qsl, &f.seq_lens[s], f.block_tables.data() + s * f.max_blocks_per_seq,
                                     f.max_blocks_per_seq};
          for (int threads : {1, 2, 4}) {
            ThreadPool pool(threads);
            ComputeContext ctx(*set, pool);
            std::vector<float> out(static_cast<size_t>(width));
            const int64_t last_row = f.query_start_loc[s + 1] - 1;
            set->paged_attention(f.q.data() + last_row * width, f.num_heads, f.cache, alone, params, out.data(), ctx);
            ASSERT_EQ(FirstBitDifference(out.data(), batched.data() + last_row * width, width), -1)
                << set->name << " " << Describe(kind) << " seq " << s << " threads " << threads << " "
                << Describe(params);
          }
        }
      }
    }
  }
}

// A prompt computed in two chunks (the second continuing the cached first)
// gives its rows the same bits as computed whole.
TEST(FastAttentionTest, ChunkedPrefillEqualsWholePrefill) {
  for (const CacheKind& kind : CacheKinds(DType::kF16, 4)) {
    const PagedFixture f = MakePagedFixture(kind.dtype, 6, 2, 64, kind.block_size, {300}, {300}, 43);
    const int64_t width = f.num_heads * f.head_dim;
    for (const AttentionParams& params : Variants(0.125f)) {
      for (const cpu::KernelSet* set : kind.sets) {
        const std::vector<float> whole = RunSet(*set, f, params, 2);
        for (int32_t split : {1, 17, 256, 299}) {
          const int32_t qsl[2] = {0, 300 - split};
          const int32_t len = 300;
          const AttentionBatch tail{1, qsl, &len, f.block_tables.data(), f.max_blocks_per_seq};
          ThreadPool pool(2);
          ComputeContext ctx(*set, pool);
          std::vector<float> out(static_cast<size_t>((300 - split) * width));
          set->paged_attention(f.q.data() + split * width, f.num_heads, f.cache, tail, params, out.data(), ctx);
          ASSERT_EQ(FirstBitDifference(out.data(), whole.data() + split * width, static_cast<int64_t>(out.size())),
                    -1)
              << set->name << " " << Describe(kind) << " split at " << split << " " << Describe(params);
        }
      }
    }
  }
}

// A windowed layer reads only the blocks that hold positions inside some
// query's window: the others may already be back in the pool, so their
// table entries may be anything.
TEST(FastAttentionTest, SlidingWindowReadsOnlyBlocksInsideIt) {
  for (const CacheKind& kind : CacheKinds(DType::kF16, 4)) {
    const PagedFixture f = MakePagedFixture(kind.dtype, 4, 2, 64, kind.block_size, {1, 3}, {120, 110}, 29);
    const AttentionParams params{.scale = 0.125f, .sliding_window = 10 + kind.block_size};
    const std::vector<float> want = RunReference(f, params);
    PagedFixture stale = f;
    const int32_t first_rows[2] = {119, 107};  // each sequence's first query position
    for (int s = 0; s < 2; ++s) {
      const int64_t first_visible_block = (first_rows[s] + 1 - params.sliding_window) / f.cache.block_size;
      ASSERT_GT(first_visible_block, 0) << Describe(kind);
      for (int64_t b = 0; b < first_visible_block; ++b) stale.block_tables[s * f.max_blocks_per_seq + b] = -1;
    }
    for (const cpu::KernelSet* set : kind.sets) {
      const std::vector<float> intact = RunSet(*set, f, params, 2);
      const std::vector<float> got = RunSet(*set, stale, params, 2);
      ASSERT_EQ(FirstBitDifference(got.data(), intact.data(), static_cast<int64_t>(intact.size())), -1)
          << set->name << " " << Describe(kind);
      if (KeepsGgmlOrder(*set)) {
        ASSERT_EQ(FirstBitDifference(got.data(), want.data(), static_cast<int64_t>(want.size())), -1)
            << set->name << " " << Describe(kind);
      }
    }
  }
}

// A sequence's outputs do not depend on what else is in the batch.
TEST(FastAttentionTest, SequenceAloneEqualsSequenceInBatch) {
  for (const CacheKind& kind : CacheKinds(DType::kF32, 4)) {
    const PagedFixture f = MakePagedFixture(kind.dtype, 6, 2, 64, kind.block_size, {1, 7, 5, 1, 20},
                                            {13, 7, 22, 1, 60}, 23);
    const int64_t width = f.num_heads * f.head_dim;
    for (const cpu::KernelSet* set : kind.sets) {
      const std::vector<float> all = RunSet(*set, f, {.scale = 0.125f}, 2);
      for (size_t s = 0; s < f.q_lens.size(); ++s) {
        const int32_t qsl[2] = {0, f.q_lens[s]};
        const AttentionBatch alone{1, qsl, &f.seq_lens[s], f.block_tables.data() + s * f.max_blocks_per_seq,
                                   f.max_blocks_per_seq};
        ThreadPool pool(1);
        ComputeContext ctx(*set, pool);
        std::vector<float> out(static_cast<size_t>(f.q_lens[s] * width));
        set->paged_attention(f.q.data() + f.query_start_loc[s] * width, f.num_heads, f.cache, alone,
                             {.scale = 0.125f}, out.data(), ctx);
        ASSERT_EQ(FirstBitDifference(out.data(), all.data() + f.query_start_loc[s] * width,
                                     static_cast<int64_t>(out.size())),
                  -1)
            << set->name << " " << Describe(kind) << " seq " << s;
      }
    }
  }
}

TEST(AttentionDeathTest, RejectsBlockIdsOutsideTheArena) {
  PagedFixture f = Mixed(DType::kF32, 16, 1);
  f.block_tables[0] = static_cast<int32_t>(f.cache.num_blocks);
  std::vector<float> out(static_cast<size_t>(f.tokens() * f.num_heads * f.head_dim));
  ThreadPool pool(1);
  ComputeContext ctx(cpu::BestKernelSet(), pool);
  EXPECT_DEATH(PagedAttention(ctx, f.q.data(), f.num_heads, f.cache, f.batch(), {.scale = 1.0f}, out.data()),
               "block id out of range");
}

}  // namespace
}  // namespace pagoda::kernels
