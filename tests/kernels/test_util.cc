#include "test_util.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>

#include <gtest/gtest.h>


#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/tensor/half.h"

namespace pagoda::kernels::testing {

std::vector<float> RandomFloats(int64_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& f : v) f = dist(rng);
  return v;
}

Weights MakeWeights(DType dtype, int64_t rows, int64_t cols, uint32_t seed) {
  Weights w{dtype, rows, cols, std::vector<uint8_t>(static_cast<size_t>(rows * DTypeRowBytes(dtype, cols)))};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> scale_exp(-1.0f, 1.0f);
  for (int64_t r = 0; r < rows; ++r) {
    const float scale = std::pow(10.0f, scale_exp(rng));
    std::vector<float> values = RandomFloats(cols, seed * 7919u + static_cast<uint32_t>(r), -scale, scale);
    reference::QuantizeRow(dtype, values.data(), w.bytes.data() + r * DTypeRowBytes(dtype, cols), cols);
  }
  return w;
}

std::vector<size_t> F16FieldOffsets(DType dtype) {
  switch (dtype) {
    case DType::kQ4_0: return {offsetof(BlockQ4_0, d)};
    case DType::kQ4_1: return {offsetof(BlockQ4_1, d), offsetof(BlockQ4_1, m)};
    case DType::kQ5_0: return {offsetof(BlockQ5_0, d)};
    case DType::kQ5_1: return {offsetof(BlockQ5_1, d), offsetof(BlockQ5_1, m)};
    case DType::kQ8_0: return {offsetof(BlockQ8_0, d)};
    case DType::kIQ4_NL: return {offsetof(BlockIQ4_NL, d)};
    case DType::kQ2_K: return {offsetof(BlockQ2_K, d), offsetof(BlockQ2_K, dmin)};
    case DType::kQ3_K: return {offsetof(BlockQ3_K, d)};
    case DType::kQ4_K: return {offsetof(BlockQ4_K, d), offsetof(BlockQ4_K, dmin)};
    case DType::kQ5_K: return {offsetof(BlockQ5_K, d), offsetof(BlockQ5_K, dmin)};
    case DType::kQ6_K: return {offsetof(BlockQ6_K, d)};
    case DType::kIQ4_XS: return {offsetof(BlockIQ4_XS, d)};
    default: ADD_FAILURE() << "no random blocks for " << DTypeName(dtype); return {};
  }
}

Weights MakeRawWeights(DType dtype, int64_t rows, int64_t cols, uint32_t seed) {
  Weights w{dtype, rows, cols, std::vector<uint8_t>(static_cast<size_t>(rows * DTypeRowBytes(dtype, cols)))};
  std::mt19937 rng(seed);
  for (uint8_t& b : w.bytes) b = static_cast<uint8_t>(rng());
  // Replace the f16 fields with finite values of moderate size.
  std::uniform_real_distribution<float> field(-2.0f, 2.0f);
  const int64_t block_bytes = DTypeBlockBytes(dtype);
  for (size_t off = 0; off < w.bytes.size(); off += static_cast<size_t>(block_bytes)) {
    for (size_t field_offset : F16FieldOffsets(dtype)) {
      const f16_bits h = F32ToF16(field(rng));
      std::memcpy(w.bytes.data() + off + field_offset, &h, 2);
    }
  }
  return w;
}

int64_t FirstBitDifference(const float* a, const float* b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (BitsFromF32(a[i]) != BitsFromF32(b[i])) return i;
  }
  return -1;
}

int64_t MaxUlpDistance(const float* a, const float* b, int64_t n) {
  // Map floats onto a monotonic integer line so adjacent floats differ by 1.
  auto line = [](float f) {
    const int64_t u = BitsFromF32(f);
    return u & 0x80000000 ? -(u & 0x7fffffff) : u;
  };
  int64_t worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) {
      if (!(std::isnan(a[i]) && std::isnan(b[i]))) return std::numeric_limits<int64_t>::max();
      continue;
    }
    worst = std::max(worst, std::abs(line(a[i]) - line(b[i])));
  }
  return worst;
}

AttentionBatch PagedFixture::batch() const {
  return {static_cast<int64_t>(q_lens.size()), query_start_loc.data(), seq_lens.data(), block_tables.data(),
          max_blocks_per_seq};
}

PagedFixture MakePagedFixture(DType dtype, int64_t num_heads, int64_t num_kv_heads, int64_t head_dim,
                              int64_t block_size, std::vector<int32_t> q_lens,
                              std::vector<int32_t> seq_lens, uint32_t seed, bool bf16_values) {
  auto random = [&](int64_t n, uint32_t s, float lo, float hi) {
    std::vector<float> values = RandomFloats(n, s, lo, hi);
    if (bf16_values) {
      for (float& v : values) v = BF16ToF32(F32ToBF16(v));
    }
    return values;
  };
  PagedFixture f;
  f.dtype = dtype;
  f.num_heads = num_heads;
  f.num_kv_heads = num_kv_heads;
  f.head_dim = head_dim;
  f.block_size = block_size;
  f.q_lens = std::move(q_lens);
  f.seq_lens = std::move(seq_lens);
  const int64_t num_seqs = static_cast<int64_t>(f.q_lens.size());
  std::mt19937 rng(seed);

  f.max_blocks_per_seq = 0;
  int64_t used_blocks = 0;
  for (int32_t len : f.seq_lens) {
    const int64_t blocks = (len + block_size - 1) / block_size;
    f.max_blocks_per_seq = std::max(f.max_blocks_per_seq, blocks + 1);  // one spare entry, left as garbage
    used_blocks += blocks;
  }
  const int64_t num_blocks = used_blocks + 5;  // free blocks too
  std::vector<int32_t> ids(static_cast<size_t>(num_blocks));
  std::iota(ids.begin(), ids.end(), 0);
  std::shuffle(ids.begin(), ids.end(), rng);

  const int64_t width = num_kv_heads * head_dim;
  const size_t elem = dtype == DType::kF32 ? 4 : 2;
  const size_t arena_bytes = static_cast<size_t>(num_blocks * block_size * width) * elem;
  f.k_arena.resize(arena_bytes);
  f.v_arena.resize(arena_bytes);
  // NaN everywhere: a kernel reading a slot no sequence owns poisons its output.
  if (dtype != DType::kF32) {
    const uint16_t nan = dtype == DType::kF16 ? 0x7e00 : 0x7fc0;
    for (size_t i = 0; i < arena_bytes; i += 2) {
      std::memcpy(f.k_arena.data() + i, &nan, 2);
      std::memcpy(f.v_arena.data() + i, &nan, 2);
    }
  } else {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (size_t i = 0; i < arena_bytes; i += 4) {
      std::memcpy(f.k_arena.data() + i, &nan, 4);
      std::memcpy(f.v_arena.data() + i, &nan, 4);
    }
  }
  f.cache = {dtype, f.k_arena.data(), f.v_arena.data(), num_blocks, block_size, num_kv_heads, head_dim};

  f.block_tables.assign(static_cast<size_t>(num_seqs * f.max_blocks_per_seq), 0);
  std::uniform_int_distribution<int32_t> any_block(0, static_cast<int32_t>(num_blocks - 1));
  for (int32_t& b : f.block_tables) b = any_block(rng);  // garbage past each sequence's end
  f.query_start_loc.assign(1, 0);
  size_t next = 0;
  for (int64_t s = 0; s < num_seqs; ++s) {
    const int32_t len = f.seq_lens[s];
    const int64_t blocks = (len + block_size - 1) / block_size;
    for (int64_t b = 0; b < blocks; ++b) f.block_tables[s * f.max_blocks_per_seq + b] = ids[next++];
    f.query_start_loc.push_back(f.query_start_loc.back() + f.q_lens[s]);

    f.k_values.push_back(random(len * width, seed + 101 * static_cast<uint32_t>(s), -2.0f, 2.0f));
    f.v_values.push_back(random(len * width, seed + 103 * static_cast<uint32_t>(s), -2.0f, 2.0f));
    std::vector<int64_t> slots(static_cast<size_t>(len));
    for (int64_t p = 0; p < len; ++p) {
      slots[p] = int64_t{f.block_tables[s * f.max_blocks_per_seq + p / block_size]} * block_size + p % block_size;
    }
    reference::WriteKv(f.k_values.back().data(), f.v_values.back().data(), slots.data(), len, f.cache);
  }
  f.q = random(f.tokens() * num_heads * head_dim, seed + 7, -1.0f, 1.0f);
  return f;
}

std::string Describe(DType dtype, int64_t m, int64_t rows, int64_t cols, int threads) {
  std::ostringstream s;
  s << DTypeName(dtype) << " m=" << m << " rows=" << rows << " cols=" << cols << " threads=" << threads;
  return s.str();
}

int64_t FirstOutsideDotBound(const std::vector<float>& got, const std::vector<float>& want, const Weights& w,
                             const std::vector<float>& x, int64_t m, double rel) {
  const int64_t k = w.cols;
  std::vector<float> wrow(static_cast<size_t>(k));
  for (int64_t j = 0; j < w.rows; ++j) {
    reference::DequantizeRow(w.dtype, w.bytes.data() + j * DTypeRowBytes(w.dtype, k), wrow.data(), k);
    for (int64_t i = 0; i < m; ++i) {
      double magnitude = 0.0;
      for (int64_t c = 0; c < k; ++c) magnitude += std::fabs(double{wrow[c]} * x[i * k + c]);
      const int64_t at = i * w.rows + j;
      if (!(std::fabs(double{got[at]} - want[at]) <= rel * magnitude + 1e-30)) return at;
    }
  }
  return -1;
}

bool RunsBf16Dots(std::string_view set_name) { return set_name == "avx512bf16" || set_name == "amx"; }

bool RunsAvx512BlockUpdate(std::string_view set_name, DType dtype) {
  const bool block_type = dtype == DType::kQ4_0 || dtype == DType::kQ4_1 || dtype == DType::kQ5_0 ||
                          dtype == DType::kQ5_1 || dtype == DType::kQ8_0 || dtype == DType::kIQ4_NL;
  return block_type && (set_name.starts_with("avx512") || set_name == "amx");
}

}  // namespace pagoda::kernels::testing
