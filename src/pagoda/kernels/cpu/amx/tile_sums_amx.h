// The tile pieces shared by the AMX MatMul panels (matmul_quant_amx.cc,
// matmul_k_amx.cc): the tile configuration and the int32 sums of 16 x rows'
// bytes against one packed weight block. Internal linkage only, for the
// AMX units (include avx512_util.h first).
#pragma once

#include <cstdint>

#include "pagoda/kernels/cpu/amx/tile_config_amx.h"

namespace pagoda::kernels::cpu::amx {
namespace {

// The panels' configuration for blocks of kBlock bytes of x: tiles 0 and 1
// hold 16 x rows' bytes of one block (A), 2 and 3 its weights (B: one row
// of 16 dwords per 4 elements), 4 to 7 the 16 x 16 int32 sums (C) of four
// blocks in flight.
template <int kBlock>
constexpr TileConfig kSumsTileConfig = {
    .palette = 1,
    .start_row = 0,
    .reserved = {},
    .colsb = {kBlock, kBlock, 64, 64, 64, 64, 64, 64},
    .rows = {16, 16, kBlock / 4, kBlock / 4, 16, 16, 16, 16},
};

// The exact sums of one block into C tile 4, 5, 6 or 7: A (x bytes, rows
// x_stride apart) in tile 0 or 1, B (the packed block, rows 64 bytes apart)
// in tile 2 or 3. Tile numbers are part of the instruction, so each C tile
// has its own function. TDPBSUD takes unsigned weights, TDPBSSD signed ones.
#define PAGODA_AMX_BLOCK_SUMS(name, product, a, bt, c)                           \
  inline void name(const int8_t* xq, int64_t x_stride, const void* block) {     \
    _tile_loadd(a, xq, x_stride);                                               \
    _tile_loadd(bt, block, 64);                                                 \
    _tile_zero(c);                                                              \
    product(c, a, bt);                                                          \
  }
PAGODA_AMX_BLOCK_SUMS(UnsignedSumsInTile4, _tile_dpbsud, 0, 2, 4)
PAGODA_AMX_BLOCK_SUMS(UnsignedSumsInTile5, _tile_dpbsud, 1, 3, 5)
PAGODA_AMX_BLOCK_SUMS(UnsignedSumsInTile6, _tile_dpbsud, 0, 2, 6)
PAGODA_AMX_BLOCK_SUMS(UnsignedSumsInTile7, _tile_dpbsud, 1, 3, 7)
PAGODA_AMX_BLOCK_SUMS(SignedSumsInTile4, _tile_dpbssd, 0, 2, 4)
PAGODA_AMX_BLOCK_SUMS(SignedSumsInTile5, _tile_dpbssd, 1, 3, 5)
PAGODA_AMX_BLOCK_SUMS(SignedSumsInTile6, _tile_dpbssd, 0, 2, 6)
PAGODA_AMX_BLOCK_SUMS(SignedSumsInTile7, _tile_dpbssd, 1, 3, 7)
#undef PAGODA_AMX_BLOCK_SUMS

// The sums of four consecutive blocks into C tiles 4 to 7, then stored to
// sums[0..3][16][16]: four products are issued before their sums are
// stored, so that no store waits on the product just issued. block(i) is
// the i-th block's packed weights; x bytes advance by x_step per block.
template <bool kSigned, typename Block>
inline void StoreFourBlockSums(const int8_t* xq, int64_t x_stride, int64_t x_step, Block block, int32_t* sums) {
  constexpr int64_t kSumsInts = 16 * 16;
  if constexpr (kSigned) {
    SignedSumsInTile4(xq, x_stride, block(0));
    SignedSumsInTile5(xq + x_step, x_stride, block(1));
    SignedSumsInTile6(xq + 2 * x_step, x_stride, block(2));
    SignedSumsInTile7(xq + 3 * x_step, x_stride, block(3));
  } else {
    UnsignedSumsInTile4(xq, x_stride, block(0));
    UnsignedSumsInTile5(xq + x_step, x_stride, block(1));
    UnsignedSumsInTile6(xq + 2 * x_step, x_stride, block(2));
    UnsignedSumsInTile7(xq + 3 * x_step, x_stride, block(3));
  }
  _tile_stored(4, sums, 64);
  _tile_stored(5, sums + kSumsInts, 64);
  _tile_stored(6, sums + 2 * kSumsInts, 64);
  _tile_stored(7, sums + 3 * kSumsInts, 64);
}

// One block's sums through C tile 4, stored to sums[16][16].
template <bool kSigned>
inline void StoreOneBlockSums(const int8_t* xq, int64_t x_stride, const void* block, int32_t* sums) {
  if constexpr (kSigned) {
    SignedSumsInTile4(xq, x_stride, block);
  } else {
    UnsignedSumsInTile4(xq, x_stride, block);
  }
  _tile_stored(4, sums, 64);
}

}  // namespace
}  // namespace pagoda::kernels::cpu::amx
