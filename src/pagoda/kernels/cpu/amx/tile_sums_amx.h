// The tile pieces shared by the AMX MatMul panels (matmul_quant_amx.cc,
// matmul_k_amx.cc): the tile configuration and the int32 sums of 16 x rows'
// bytes against a run of packed weight blocks. Internal linkage only, for the
// AMX units (include avx512_util.h first).
#pragma once

#include <cstdint>

#include "pagoda/kernels/cpu/amx/tile_config_amx.h"

namespace pagoda::kernels::cpu::amx {
namespace {

// The panels' configuration for blocks of kBlock bytes of x: tiles 0 and 1
// hold 16 x rows' bytes of one block (A), 2 and 3 its weights (B: one row
// of 16 dwords per 4 elements), 4 to 7 the 16 x 16 int32 sums (C) of two
// pairs of blocks in flight.
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
#define PAGODA_AMX_BLOCK_SUMS(name, product, a, bt, c)                      \
  inline void name(const int8_t* xq, int64_t x_stride, const void* block) { \
    _tile_loadd(a, xq, x_stride);                                           \
    _tile_loadd(bt, block, 64);                                             \
    _tile_zero(c);                                                          \
    product(c, a, bt);                                                      \
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

// One block's sums into C tile kC (4 to 7), through the function above for
// that tile (the tile intrinsics take literal tile numbers, so a template
// can only choose among them).
template <bool kSigned, int kC>
inline void SumsInTile(const int8_t* xq, int64_t x_stride, const void* block) {
  static_assert(kC >= 4 && kC <= 7);
  if constexpr (kSigned) {
    if constexpr (kC == 4) SignedSumsInTile4(xq, x_stride, block);
    if constexpr (kC == 5) SignedSumsInTile5(xq, x_stride, block);
    if constexpr (kC == 6) SignedSumsInTile6(xq, x_stride, block);
    if constexpr (kC == 7) SignedSumsInTile7(xq, x_stride, block);
  } else {
    if constexpr (kC == 4) UnsignedSumsInTile4(xq, x_stride, block);
    if constexpr (kC == 5) UnsignedSumsInTile5(xq, x_stride, block);
    if constexpr (kC == 6) UnsignedSumsInTile6(xq, x_stride, block);
    if constexpr (kC == 7) UnsignedSumsInTile7(xq, x_stride, block);
  }
}

// The sums of blocks [0, n) into sums[i][16][16], pairs of blocks taking C
// tiles 4 and 5 and then 6 and 7 in turn: a pair's sums are stored after
// the next pair's products are issued, so that the stores run beside those
// products instead of waiting for the last product of a group and holding
// up the next group's (tiles are not renamed: a tile cannot take a new
// product before its sums are stored). The blocks past the last whole pair
// of pairs go one at a time through tile 4.
template <bool kSigned, typename Block>
inline void StoreBlockSumsPipelined(const int8_t* xq, int64_t x_stride, int64_t x_step, Block block, int64_t n,
                                    int32_t* sums) {
  constexpr int64_t kSumsInts = 16 * 16;
  const int64_t whole = n / 4 * 4;
  for (int64_t i = 0; i < whole; i += 4) {
    SumsInTile<kSigned, 4>(xq + i * x_step, x_stride, block(i));
    SumsInTile<kSigned, 5>(xq + (i + 1) * x_step, x_stride, block(i + 1));
    if (i > 0) {
      _tile_stored(6, sums + (i - 2) * kSumsInts, 64);
      _tile_stored(7, sums + (i - 1) * kSumsInts, 64);
    }
    SumsInTile<kSigned, 6>(xq + (i + 2) * x_step, x_stride, block(i + 2));
    SumsInTile<kSigned, 7>(xq + (i + 3) * x_step, x_stride, block(i + 3));
    _tile_stored(4, sums + i * kSumsInts, 64);
    _tile_stored(5, sums + (i + 1) * kSumsInts, 64);
  }
  if (whole > 0) {
    _tile_stored(6, sums + (whole - 2) * kSumsInts, 64);
    _tile_stored(7, sums + (whole - 1) * kSumsInts, 64);
  }
  for (int64_t i = whole; i < n; ++i) {
    SumsInTile<kSigned, 4>(xq + i * x_step, x_stride, block(i));
    _tile_stored(4, sums + i * kSumsInts, 64);
  }
}

}  // namespace
}  // namespace pagoda::kernels::cpu::amx
