// Kernels for x86-64 with AMX-TILE, AMX-INT8 and AMX-BF16 (and AVX-512 with
// VNNI and BF16), in translation units built with those -m flags. Call only
// where AmxTilesUsable() (tile_permission.h) said yes.
#pragma once

#include <cstdint>

#include "pagoda/kernels/cpu/grouped_attention.h"
#include "pagoda/kernels/cpu/simd_matmul.h"

namespace pagoda::kernels::cpu::amx {

// Per block of a row: the packed panel block (avx512::kScratchBytesPerBlock)
// and room for a 16 x 16 tile of int32 block sums (a chunk of at most a
// row's blocks is stored at a time).
constexpr int64_t kScratchBytesPerBlock = 8 * 64 + 2 * 64 + 16 * 16 * 4;

// The 32-element block types' panels (simd_matmul.h's QuantPanelFn), equal
// bit for bit to the AVX-512 set's; batches of 16 rows or more run on tiles.
void PanelsQ4_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
                float* y);
void PanelsQ4_1(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
                float* y);
void PanelsQ8_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
                float* y);
void PanelsQ5_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
                float* y);
void PanelsQ5_1(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
                float* y);
void PanelsIQ4_NL(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
                  float* y);

// The super-block types (Q2_K..Q6_K, IQ4_XS), equal bit for bit to the
// AVX-512 set's (and the reference's); batches of 16 rows or more run on
// tiles. Scratch per super-block: the unpacked super-block (5,760 bytes)
// and up to 16 sub-blocks' 16 x 16 int32 sums.
constexpr int64_t kKScratchBytesPerSuperBlock = 90 * 64 + 16 * 16 * 16 * 4;
void PanelsK(const BlockQ8_K* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
             float* y);

// The grouped attention's segment kernel (grouped_attention.h) on AMX-BF16
// tiles, for heads of at most avx512::kMaxAttentionHeadDim dimensions;
// avx512::FoldStep and FoldFinish fold its partials (attention_amx.cc).
void AttendSegmentTiles(const AttentionSegmentArgs& args);
// The same for a BF16 cache (kv_pairs_layout.h), at every position: the
// tiles read K and V from the cache itself (attention_pairs_amx.cc).
void AttendSegmentPairs(const AttentionSegmentArgs& args);
// Its prepared chunks (GroupedAttentionKernel::prepare_chunk): kAttentionChunk
// positions of one KV head converted as the kernel's prompt layout reads them.
constexpr int64_t kAttentionChunk = 32;
int64_t PreparedChunkBytes(int64_t head_dim);
void PrepareChunk(const AttentionSegmentArgs& args, int64_t first, void* out);

}  // namespace pagoda::kernels::cpu::amx
