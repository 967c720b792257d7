// cuda::ReshapeAndCache against reference::WriteKv's layout: every written
// slot bit for bit (F32 copied, BF16 rounded to nearest even), padding
// tokens and unwritten slots untouched.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "cuda_test_support.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/kernels/cuda/reshape_and_cache.cuh"
#include "pagoda/tensor/half.h"

namespace pagoda::kernels::cuda {
namespace {

using testing::CudaCheck;
using testing::DeviceBuffer;

constexpr int64_t kBlocks = 9, kBlockSize = 16, kKvHeads = 2, kHeadDim = 64;
constexpr int64_t kWidth = kKvHeads * kHeadDim;
constexpr int64_t kArena = kBlocks * kBlockSize * kWidth;

// `tokens` distinct random slots, the third one -1 (a padding token).
std::vector<int64_t> RandomSlots(int64_t tokens, uint32_t seed) {
  std::vector<int64_t> slots(static_cast<size_t>(kBlocks * kBlockSize));
  std::iota(slots.begin(), slots.end(), 0);
  std::mt19937 rng(seed);
  std::shuffle(slots.begin(), slots.end(), rng);
  slots.resize(static_cast<size_t>(tokens));
  slots[2] = -1;
  return slots;
}

std::vector<float> RandomRows(int64_t tokens, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  std::vector<float> rows(static_cast<size_t>(tokens * kWidth));
  for (float& x : rows) x = dist(rng);
  return rows;
}

// The source rows as the kernel reads them, and as f32 for the expectation.
struct Source {
  std::vector<float> values;  // f32 (bf16-exact for a BF16 source)
  std::vector<uint8_t> bytes;
};

Source MakeSource(DType dtype, int64_t tokens, uint32_t seed) {
  Source s{RandomRows(tokens, seed), {}};
  if (dtype == DType::kBF16) {
    std::vector<bf16_bits> bits(s.values.size());
    for (size_t i = 0; i < bits.size(); ++i) {
      bits[i] = F32ToBF16(s.values[i]);
      s.values[i] = BF16ToF32(bits[i]);
    }
    s.bytes.resize(bits.size() * 2);
    std::memcpy(s.bytes.data(), bits.data(), s.bytes.size());
  } else {
    s.bytes.resize(s.values.size() * 4);
    std::memcpy(s.bytes.data(), s.values.data(), s.bytes.size());
  }
  return s;
}

// The arena's bytes after writing k (or v) through the slots, starting from
// all-ones bytes (NaN in both dtypes): the CPU reference's WriteKv for an F32
// cache, the same rows rounded to bf16 for a BF16 cache.
std::vector<uint8_t> ExpectedArena(DType cache_dtype, const std::vector<float>& rows,
                                   const std::vector<int64_t>& slots) {
  const int64_t tokens = static_cast<int64_t>(slots.size());
  if (cache_dtype == DType::kF32) {
    std::vector<float> arena(static_cast<size_t>(kArena));
    std::memset(arena.data(), 0xff, arena.size() * 4);
    std::vector<int64_t> written;
    std::vector<float> written_rows;
    for (int64_t t = 0; t < tokens; ++t) {  // WriteKv checks slots: pass it the real ones
      if (slots[t] < 0) continue;
      written.push_back(slots[t]);
      written_rows.insert(written_rows.end(), rows.begin() + t * kWidth, rows.begin() + (t + 1) * kWidth);
    }
    const KvCacheLayer cache{DType::kF32, arena.data(), arena.data(), kBlocks, kBlockSize, kKvHeads, kHeadDim};
    reference::WriteKv(written_rows.data(), written_rows.data(), written.data(), static_cast<int64_t>(written.size()),
                       cache);
    std::vector<uint8_t> bytes(arena.size() * 4);
    std::memcpy(bytes.data(), arena.data(), bytes.size());
    return bytes;
  }
  std::vector<bf16_bits> arena(static_cast<size_t>(kArena), 0xffff);
  for (int64_t t = 0; t < tokens; ++t) {
    if (slots[t] < 0) continue;
    for (int64_t i = 0; i < kWidth; ++i) arena[slots[t] * kWidth + i] = F32ToBF16(rows[t * kWidth + i]);
  }
  std::vector<uint8_t> bytes(arena.size() * 2);
  std::memcpy(bytes.data(), arena.data(), bytes.size());
  return bytes;
}

class ReshapeAndCacheTest : public testing::CudaTest,
                            public ::testing::WithParamInterface<std::pair<DType, DType>> {};

TEST_P(ReshapeAndCacheTest, WritesEachRowToItsSlotAndNothingElse) {
  const auto [src_dtype, cache_dtype] = GetParam();
  constexpr int64_t kTokens = 40;
  const std::vector<int64_t> slots = RandomSlots(kTokens, 11);
  const Source k = MakeSource(src_dtype, kTokens, 1);
  const Source v = MakeSource(src_dtype, kTokens, 2);
  const size_t arena_bytes = static_cast<size_t>(kArena * DTypeBlockBytes(cache_dtype));
  const DeviceBuffer k_src(k.bytes), v_src(v.bytes), slot_mapping(slots);
  const DeviceBuffer k_cache(arena_bytes), v_cache(arena_bytes);
  CudaCheck(cudaMemset(k_cache.get(), 0xff, arena_bytes), "cudaMemset");
  CudaCheck(cudaMemset(v_cache.get(), 0xff, arena_bytes), "cudaMemset");
  const KvCacheLayer cache{cache_dtype, k_cache.get(), v_cache.get(), kBlocks, kBlockSize, kKvHeads, kHeadDim};
  const Status status =
      ReshapeAndCache(k_src.get(), v_src.get(), src_dtype, slot_mapping.as<int64_t>(), kTokens, cache, nullptr);
  ASSERT_TRUE(status.ok()) << status.ToString();
  CudaCheck(cudaDeviceSynchronize(), "reshape_and_cache");
  EXPECT_EQ(k_cache.ToHost<uint8_t>(), ExpectedArena(cache_dtype, k.values, slots));
  EXPECT_EQ(v_cache.ToHost<uint8_t>(), ExpectedArena(cache_dtype, v.values, slots));
}

INSTANTIATE_TEST_SUITE_P(SourceAndCacheDtypes, ReshapeAndCacheTest,
                         ::testing::Values(std::pair{DType::kF32, DType::kF32}, std::pair{DType::kF32, DType::kBF16},
                                           std::pair{DType::kBF16, DType::kBF16},
                                           std::pair{DType::kBF16, DType::kF32}));

}  // namespace
}  // namespace pagoda::kernels::cuda
