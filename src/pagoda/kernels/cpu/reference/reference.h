// Scalar reference kernels: the test oracle for pagoda/kernels/cpu_kernels.h.
//
// Each kernel mirrors its twin in pagoda::kernels (same arguments, no pool)
// and is written for clarity. Where a fast path must agree bit for bit, the
// arithmetic order is part of the contract and stated here; the kernels
// library is built with -ffp-contract=off so expressions round as written.
#pragma once

#include <cstdint>

#include "pagoda/kernels/cpu_kernels.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda::kernels::reference {

// Quantized weights: x rows quantized to the weight type's activation type
// (Q8_0, Q8_1 or Q8_K), then the VecDot* below.
// F32/F16/BF16 weights: LaneDot of the weight row widened to f32 with the f32
// x row (GGML instead rounds x to f16 for F16 weights; we do not).
// A w.input_order is applied first, by GatherColumns.
void MatMul(const float* x, int64_t m, const MatrixView& w, float* y);
// out[i][k] = x[i][order[k]] for m rows of `cols`.
void GatherColumns(const float* x, int64_t m, int64_t cols, const int32_t* order, float* out);
void EmbeddingLookup(const MatrixView& table, const int32_t* ids, int64_t n, float* out);
void RmsNorm(const float* x, const float* weight, int64_t rows, int64_t dim, float eps, float* y);
void Rope(float* x, const int32_t* positions, int64_t tokens, int64_t heads, int64_t head_dim,
          const RopeParams& params);
// Rope in two parts: each token's (cos, sin) per pair, [tokens][head_dim / 2]
// pairs, which every head and layer at that position shares; then the
// rotation of every head's pairs by them. Rope is RopeAngles then
// RotatePairs, with the same bits.
void RopeAngles(const int32_t* positions, int64_t tokens, int64_t head_dim, const RopeParams& params,
                float* cos_sin);
void RotatePairs(float* x, const float* cos_sin, int64_t tokens, int64_t heads, int64_t head_dim, RopeStyle style);
// out = GgmlSilu(gate) * up, as GGML's fused SWIGLU on AVX-512.
void SiluMul(const float* gate, const float* up, int64_t n, float* out);
// out = GeluTanh(gate) * up.
void GeluMul(const float* gate, const float* up, int64_t n, float* out);
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), in float.
float GeluTanh(float x);
void AddInPlace(float* y, const float* x, int64_t n);
void AddBias(float* y, const float* bias, int64_t rows, int64_t cols);
void Scale(float* x, int64_t n, float s);
void Softcap(float* x, int64_t n, float cap);
void MoeRoute(const float* logits, int64_t tokens, int64_t num_experts, int64_t k, bool normalize,
              int32_t* expert_ids, float* weights);
void WriteKv(const float* k, const float* v, const int64_t* slot_mapping, int64_t tokens,
             const KvCacheLayer& cache);
void PagedAttention(const float* q, int64_t num_heads, const KvCacheLayer& cache,
                    const AttentionBatch& batch, const AttentionParams& params, float* out);

// Row conversions, n elements (a multiple of 32 for block types). Quantizers
// follow GGML's reference quantize_row_*, except Q8_0/Q8_1 (the activation
// types), which follow GGML's x86 SIMD versions: multiplier 127 / amax and
// rounding half to even. Inputs are assumed finite.
void DequantizeRow(DType type, const void* src, float* dst, int64_t n);
void QuantizeRowQ4_0(const float* x, BlockQ4_0* y, int64_t n);
void QuantizeRowQ4_1(const float* x, BlockQ4_1* y, int64_t n);
void QuantizeRowQ8_0(const float* x, BlockQ8_0* y, int64_t n);
void QuantizeRowQ8_1(const float* x, BlockQ8_1* y, int64_t n);
// GGML's quantize_row_q8_K_ref: per 256, the value of largest magnitude maps
// to -127 (multiplier -127 / max, rounding half to even, capped at 127),
// d = 1 / multiplier, and the sums of each 16 quantized values.
void QuantizeRowQ8_K(const float* x, BlockQ8_K* y, int64_t n);
void QuantizeRowF16(const float* x, f16_bits* y, int64_t n);
void QuantizeRowBF16(const float* x, bf16_bits* y, int64_t n);
// Any of the above by type (F32 copies).
void QuantizeRow(DType type, const float* x, void* y, int64_t n);

// Block dot products of a weight row with a quantized activation row, nb
// blocks. Integer sums are exact. Q4_0 accumulates over blocks in order, from
// 0, without FMA:
//   Q4_0·Q8_0: sumf += ((float)sumi * d_w) * d_x      sumi = sum (nibble - 8) * q
// Q4_1 and Q8_0 follow GGML's x86 ggml_vec_dot_q4_1_q8_1 / ggml_vec_dot_q8_0_q8_0
// (which llamafile's tinyBLAS_Q0_AVX matches for Q8_0): 8 float accumulators,
// one per group g of 4 consecutive block elements (4g..4g+3, Q4 low nibbles
// being elements 0-15 and high nibbles 16-31), over blocks in order:
//   Q4_1·Q8_1: acc[g] = fma(d_w * d_x, (float)sumi_g, acc[g]);  summs = fma(m_w, s_x, summs)
//              result = Hsum8(acc) + summs
//   Q8_0·Q8_0: acc[g] = fma(d_w * d_x, (float)sumi_g, acc[g]);  result = Hsum8(acc)
float VecDotQ4_0Q8_0(const BlockQ4_0* w, const BlockQ8_0* x, int64_t nb);
float VecDotQ4_1Q8_1(const BlockQ4_1* w, const BlockQ8_1* x, int64_t nb);
float VecDotQ8_0Q8_0(const BlockQ8_0* w, const BlockQ8_0* x, int64_t nb);
// Q5_0 and IQ4_NL as Q4_0 (their integer values q - 16 and the IQ4 table's);
// Q5_1 as sumf += (float)sumi * d_w * d_x + m_w * s_x, over blocks in order.
float VecDotQ5_0Q8_0(const BlockQ5_0* w, const BlockQ8_0* x, int64_t nb);
float VecDotQ5_1Q8_1(const BlockQ5_1* w, const BlockQ8_1* x, int64_t nb);
float VecDotIQ4_NLQ8_0(const BlockIQ4_NL* w, const BlockQ8_0* x, int64_t nb);
// The super-block types with Q8_K activations (nb super-blocks), from the
// integers of k_block_decode.h, exact per super-block:
//   scaled = sum over sub-blocks s of scale_s * (q_w . q_x over s)
//   mins   = sum over sub-blocks s of min_s * (sum of q_x over s, from bsums)
//   sumf  += d_x * (d_w * (float)scaled - dmin_w * (float)mins)
// over super-blocks in order. (GGML's order differs; parity is by tolerance.)
float VecDotQ2_KQ8_K(const BlockQ2_K* w, const BlockQ8_K* x, int64_t nb);
float VecDotQ3_KQ8_K(const BlockQ3_K* w, const BlockQ8_K* x, int64_t nb);
float VecDotQ4_KQ8_K(const BlockQ4_K* w, const BlockQ8_K* x, int64_t nb);
float VecDotQ5_KQ8_K(const BlockQ5_K* w, const BlockQ8_K* x, int64_t nb);
float VecDotQ6_KQ8_K(const BlockQ6_K* w, const BlockQ8_K* x, int64_t nb);
float VecDotIQ4_XSQ8_K(const BlockIQ4_XS* w, const BlockQ8_K* x, int64_t nb);

// The f32 dot product of the float-weight MatMul, in the order a 16-lane SIMD
// unit computes it: lane l
// accumulates elements l, l+16, l+32, ... with fused multiply-add from +0,
// the last partial group padded with zeros; then lanes fold pairwise
// (l += l+8, then l += l+4, l += l+2, l += l+1).
constexpr int kDotLanes = 16;
float LaneDot(const float* a, const float* b, int64_t n);
// The sum of a[0..n) in the same lane order, with adds: LaneDot(a, ones, n).
float LaneSum(const float* a, int64_t n);

// GGML's ggml_vec_dot_f32 order on AVX-512: 64 lanes (four 16-wide
// accumulators), lane l accumulating elements l, l+64, ... of the first
// n & ~63 by fused multiply-add from +0, folded l += l+32, l += l+16, then as
// LaneDot; the remaining elements are then added one by one with fma.
float GgmlDotF32(const float* a, const float* b, int64_t n);

// Pagoda's implementation of the algorithm of GGML's AVX-512 ggml_v_expf
// (same constants, same operation order), for parity with llama.cpp; the
// SIMD kernels compute exactly this per lane.
float GgmlExpf(float x);
// x / (1 + GgmlExpf(0 - x)), as GGML's ggml_v_silu.
float GgmlSilu(float x);

// GGML's hsum_float_8: ((a0+a4) + (a2+a6)) + ((a1+a5) + (a3+a7)).
float Hsum8(const float (&a)[8]);

}  // namespace pagoda::kernels::reference
