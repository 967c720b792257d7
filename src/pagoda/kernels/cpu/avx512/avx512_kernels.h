// Kernels for x86-64 with AVX-512 F/BW/VL and VNNI (plus AVX2/FMA/F16C), in
// translation units built with those -m flags. Call only after checking the CPU.
// The super-block activation quantization (Q8_K) is shared with the AVX2 set.
#pragma once

#include <cstdint>

#include "pagoda/kernels/cpu/grouped_attention.h"
#include "pagoda/kernels/cpu/quant_block_layout.h"
#include "pagoda/kernels/cpu/simd_matmul.h"

namespace pagoda::kernels::cpu::avx512 {

constexpr int kPanelRows = 16;

// Activations to Q8_1 values, bit for bit avx2::QuantizeRows.
void QuantizeRows(const float* x, int64_t row_begin, int64_t row_end, const QuantizedRows& out);
// Largest packed block: Q4_1's (and Q5_1's) 8 vectors of 64 bytes plus 16 scales and 16 minimums.
constexpr int64_t kScratchBytesPerBlock = 8 * 64 + 2 * 64;
// The super-block panels unpack one super-block at a time
// (k_unpack_avx512.h's PackedK); the driver sizes scratch per super-block,
// so this is more than they need for wide rows.
constexpr int64_t kKScratchBytesPerSuperBlock = 90 * 64;

void PanelsQ4_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                void* scratch, float* y);
void PanelsQ4_1(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                void* scratch, float* y);
void PanelsQ8_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                void* scratch, float* y);
void PanelsQ5_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                void* scratch, float* y);
void PanelsQ5_1(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                void* scratch, float* y);
void PanelsIQ4_NL(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                  void* scratch, float* y);

// Those weights repacked at load into panel planes (panel_planes_avx512.h),
// which the panels read instead of gathering from the GGUF rows: the bytes
// that w's planes take (0 for the types read in place), and the packing of
// panels [panel_begin, panel_end) into `planes` (64-byte aligned, sized
// PanelPlanesBytes(w)).
int64_t PanelPlanesBytes(const MatrixView& w);
void PackPanelPlanes(const MatrixView& w, int64_t panel_begin, int64_t panel_end, void* planes);

// The pieces of those panels that the AMX panels build on
// (quant_panel_avx512.h has the packed layout): unpack weight rows [j0, j0 +
// rows) of w, rows <= 16, into packed scratch of w.cols / 32 packed blocks;
// and run x rows [i0, i0 + count) past such a panel, writing y[i * ldy + l]
// for its first `rows` rows l.
void PackQuantPanel(Kind kind, const MatrixView& w, int64_t j0, int rows, void* packed);
void PackedQuantPanelRows(Kind kind, const void* packed, const QuantizedRows& x, int64_t i0, int64_t count,
                          float* y, int64_t ldy, int rows);

// The super-block types (Q2_K..Q6_K, IQ4_XS), any of them.
void PanelsK(const BlockQ8_K* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end,
             void* scratch, float* y);

// The pieces of those panels that the AMX panels build on (k_unpack_avx512.h
// has the layout): unpack super-block b of weight rows [j0, j0 + rows) of w,
// rows <= 16, into a PackedK; and add its term for x rows [i0, i0 + count)
// to y (the running sums; on the first super-block, y[i * ldy + l] is
// written) for its first `rows` rows l.
void PackKSuperBlock(const MatrixView& w, int64_t j0, int rows, int64_t b, void* packed);

// Their panel planes, as PanelPlanesBytes and PackPanelPlanes (which call
// these for the super-block types): per super-block of a 16-row panel, the
// vectors its unpacker gathers, in order (k_unpack_avx512.h's KRecorder).
int64_t KPanelPlanesBytes(const MatrixView& w);
void PackKPanelPlanes(const MatrixView& w, int64_t panel_begin, int64_t panel_end, void* planes);
void PackedKRows(DType dtype, const void* packed, const BlockQ8_K* x, int64_t i0, int64_t count, int64_t nb,
                 int64_t b, float* y, int64_t ldy, bool first, int rows);

void PanelsF32(const float* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end,
               float* y);
void PanelsF16(const float* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end,
               float* y);
void PanelsBF16(const float* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end,
                float* y);

// RoPE's rotation, bit for bit reference::RotatePairs.
void RotatePairs(float* x, const float* cos_sin, int64_t tokens, int64_t heads, int64_t head_dim, RopeStyle style);

// out = silu(gate) * up, bit for bit reference::SiluMul.
void SiluMul(const float* gate, const float* up, int64_t n, float* out);
// y += x, bit for bit reference::AddInPlace.
void AddInPlace(float* y, const float* x, int64_t n);
// reference::RmsNorm with its double sum in lanes (elementwise_avx512.cc).
void RmsNorm(const float* x, const float* weight, int64_t rows, int64_t dim, float eps, float* y);
// reference::WriteKv, byte for byte except for NaN payloads.
void WriteKv(const float* k, const float* v, const int64_t* slot_mapping, int64_t tokens, const KvCacheLayer& cache);

// The grouped attention kernel (grouped_attention.h), for heads of at most
// kMaxAttentionHeadDim dimensions.
constexpr int64_t kMaxAttentionHeadDim = 512;
void AttendSegment(const AttentionSegmentArgs& args);
void FoldStep(const float* partial, bool first, int32_t num_vectors, int64_t head_dim, float* state);
void FoldFinish(const float* state, int32_t num_vectors, int64_t head_dim, float* out);
// The same with bf16 products through VDPBF16PS (AVX512-BF16 CPUs only);
// FoldStep and FoldFinish fold its partials.
void AttendSegmentBf16(const AttentionSegmentArgs& args);

}  // namespace pagoda::kernels::cpu::avx512
