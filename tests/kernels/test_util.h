// Shared fixtures for the kernel tests: random data, weight matrices in every
// dtype, a scattered paged KV cache, and bitwise comparison.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pagoda/kernels/cpu_kernels.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda::kernels::testing {

std::vector<float> RandomFloats(int64_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f);

// A weight matrix owning its bytes.
struct Weights {
  DType dtype;
  int64_t rows;
  int64_t cols;
  std::vector<uint8_t> bytes;
  MatrixView view() const { return {dtype, bytes.data(), rows, cols}; }
};

// Random values (row scales varying over two orders of magnitude) quantized
// with the reference quantizer.
Weights MakeWeights(DType dtype, int64_t rows, int64_t cols, uint32_t seed);
// Byte offsets of a block type's f16 scale fields.
std::vector<size_t> F16FieldOffsets(DType dtype);
// Quantized blocks of random bits (any nibble, Q8_0 bytes down to -128) with
// random finite f16 scales.
Weights MakeRawWeights(DType dtype, int64_t rows, int64_t cols, uint32_t seed);

// First index where the bit patterns differ, or -1.
int64_t FirstBitDifference(const float* a, const float* b, int64_t n);
// Largest distance in units in the last place (0 = bit-identical; NaNs count as huge unless both NaN).
int64_t MaxUlpDistance(const float* a, const float* b, int64_t n);

// A paged KV cache (F32, F16 or BF16) whose sequences' blocks are scattered
// over a shuffled arena, with NaN in every slot no sequence owns. K/V hold
// random values written through reference::WriteKv; the f32 originals are
// kept for naive checks.
struct PagedFixture {
  DType dtype;
  int64_t num_heads, num_kv_heads, head_dim, block_size;
  std::vector<int32_t> q_lens;    // per sequence
  std::vector<int32_t> seq_lens;  // per sequence
  std::vector<uint8_t> k_arena, v_arena;
  KvCacheLayer cache;
  std::vector<int32_t> query_start_loc, block_tables;
  int64_t max_blocks_per_seq;
  std::vector<std::vector<float>> k_values, v_values;  // per sequence [len][kv_heads][head_dim]
  std::vector<float> q;                                // [tokens][num_heads][head_dim]

  AttentionBatch batch() const;
  int64_t tokens() const { return query_start_loc.back(); }
};

// With bf16_values, q, K and V are random values that bf16 holds exactly, so
// a kernel that rounds them to bf16 sees the same inputs as the reference.
PagedFixture MakePagedFixture(DType dtype, int64_t num_heads, int64_t num_kv_heads, int64_t head_dim,
                              int64_t block_size, std::vector<int32_t> q_lens,
                              std::vector<int32_t> seq_lens, uint32_t seed, bool bf16_values = false);

std::string Describe(DType dtype, int64_t m, int64_t rows, int64_t cols, int threads);

// The sets built on avx512bf16 (it and amx): BF16 weights through
// VDPBF16PS and long-context attention in bf16.
bool RunsBf16Dots(std::string_view set_name);
// Whether the set computes weights of this type with the AVX-512 panels'
// per-block FMA update instead of GGML's order: the avx512, avx512bf16 and
// amx sets, on the 32-element block types (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0,
// IQ4_NL).
bool RunsAvx512BlockUpdate(std::string_view set_name, DType dtype);

// The first index of y = x w^T (m rows) where got and want differ by more
// than rel times the sum of |w * x| over the dot product (w dequantized), or
// -1: the bound for kernels that sum in another order than the reference.
int64_t FirstOutsideDotBound(const std::vector<float>& got, const std::vector<float>& want, const Weights& w,
                             const std::vector<float>& x, int64_t m, double rel = 1e-5);

}  // namespace pagoda::kernels::testing
