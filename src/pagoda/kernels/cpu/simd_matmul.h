// The shared driver of the SIMD MatMul kernels and the interface each ISA's
// translation unit implements.
//
// Per call the driver quantizes every x row once (Q8_0/Q8_1, or Q8_K for the
// super-block types), then splits the weight rows into panels of panel_rows
// over the pool. A panel kernel unpacks its panel of
// weight rows into scratch once and then streams all m x rows past it, so
// each weight byte is read from memory once per call however large m is.
//
// Batch invariance: a panel kernel's lanes are (x row, weight row) pairs,
// and every lane performs one fixed sequence of per-block float operations
// on exact integer block or group sums, whichever tile, lane, instruction
// set (VNNI or AMX) or thread computes it. Which tile or lane an output
// lands in therefore cannot change its value. The scalar and AVX2 sets'
// sequence is the reference dot product's (reference.h), bit for bit; the
// AVX-512 sets' 32-element block types use their own (quant_panel_avx512.h).
//
// The ISA translation units are compiled with their own -m flags, so they
// export only plain functions over raw pointers and instantiate nothing from
// shared headers (an inline function compiled with AVX-512 could otherwise be
// the copy the linker keeps for portable callers).
#pragma once

#include <cstdint>
#include <span>

#include "pagoda/kernels/cpu_kernels.h"

namespace pagoda::kernels::cpu {

// x rows quantized as GGML's quantize_row_q8_1 would (which gives the same d
// and qs as quantize_row_q8_0), stored unpacked for SIMD loads.
struct QuantizedRows {
  int64_t m;
  int64_t k;       // a multiple of 32; nb = k / 32 blocks per row
  int8_t* qs;      // [m][k]
  float* d;        // [m][nb] the f16 scale, widened
  float* s;        // [m][nb] the f16 Q8_1 sum term d * sum(qs), widened
  int32_t* sum;    // [m][nb] sum(qs) of the block
};

// Quantizes rows [row_begin, row_end) of x (out.k columns) into out.
using QuantizeRowsFn = void (*)(const float* x, int64_t row_begin, int64_t row_end,
                                const QuantizedRows& out);
// The same to Q8_K for the super-block types, as reference::QuantizeRowQ8_K
// (x has k columns; out holds k / 256 blocks per row).
using QuantizeQ8_KFn = void (*)(const float* x, int64_t k, int64_t row_begin, int64_t row_end, BlockQ8_K* out);
// y[i][j] for every x row i and weight rows j in [row_begin, row_end), a
// whole number of panels except possibly at w.rows. y has w.rows columns.
// scratch holds nb * scratch_bytes_per_block bytes, 64-byte aligned.
using QuantPanelFn = void (*)(const QuantizedRows& x, const MatrixView& w, int64_t row_begin,
                              int64_t row_end, void* scratch, float* y);
// The same for the super-block weight types, with Q8_K activations (x[i]
// holds w.cols / 256 blocks); scratch holds w.cols / 256 *
// k_scratch_bytes_per_super_block bytes, 64-byte aligned.
using KPanelFn = void (*)(const BlockQ8_K* x, int64_t m, const MatrixView& w, int64_t row_begin,
                          int64_t row_end, void* scratch, float* y);
// Packs panels [panel_begin, panel_end) of w (panel_rows rows each) into
// out, the weights' copy in the layout the set's panels read (64-byte
// aligned, of the size PackedBytesFn gave).
using PackPanelsFn = void (*)(const MatrixView& w, int64_t panel_begin, int64_t panel_end, void* out);
// The bytes of that copy, or 0 for weights the set reads in place.
using PackedBytesFn = int64_t (*)(const MatrixView& w);
using FloatPanelFn = void (*)(const float* x, int64_t m, const MatrixView& w, int64_t row_begin,
                              int64_t row_end, float* y);

struct SimdMatMulOps {
  int panel_rows;
  int64_t scratch_bytes_per_block;
  QuantizeRowsFn quantize;
  QuantPanelFn q4_0;
  QuantPanelFn q4_1;
  QuantPanelFn q8_0;
  QuantPanelFn q5_0;
  QuantPanelFn q5_1;
  QuantPanelFn iq4_nl;
  QuantizeQ8_KFn quantize_k;
  int64_t k_scratch_bytes_per_super_block;
  KPanelFn k;  // Q2_K..Q6_K and IQ4_XS
  FloatPanelFn f32;
  FloatPanelFn f16;
  FloatPanelFn bf16;
  // Repacking at load; null where the set reads every type in place.
  PackedBytesFn packed_bytes = nullptr;
  PackPanelsFn pack = nullptr;
};

// Runs on ctx's pool, with its scratch memory.
void SimdMatMul(const SimdMatMulOps& ops, const float* x, int64_t m, const MatrixView& w, float* y,
                ComputeContext& ctx);

// Whether these weights can share one quantized input: the same number of
// columns, none with an input order, and one activation type (f32 for float
// weights, Q8_0/Q8_1 for the 32-element blocks, Q8_K for the super-blocks).
bool CanShareInput(const SimdMatMulOps& ops, std::span<const MatMulTarget> targets);
// SimdMatMul of x against each target (CanShareInput), x prepared once and
// every target's panels split over the pool in one job; each output is
// computed exactly as SimdMatMul would. `before`, where set, writes x's
// rows first (kernels::MatMuls). Returns whether the rows were split over
// the workers, in which case each also ran `after` on its rows; otherwise
// `after` is the caller's to run.
bool SimdMatMuls(const SimdMatMulOps& ops, const float* x, int64_t m, std::span<const MatMulTarget> targets,
                 ComputeContext& ctx, const RowStage& before = nullptr, const RowStage& after = nullptr);

}  // namespace pagoda::kernels::cpu
