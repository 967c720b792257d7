// LDTILECFG's operand, for the AMX units (matmul panels and attention).
#pragma once

#include <cstdint>

namespace pagoda::kernels::cpu::amx {
namespace {

// LDTILECFG's 64-byte operand (palette 1). Used as constant objects,
// because LDTILECFG's inline assembly tells the compiler it reads only 8
// of their bytes.
struct alignas(64) TileConfig {
  uint8_t palette;
  uint8_t start_row;
  uint8_t reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
};

}  // namespace
}  // namespace pagoda::kernels::cpu::amx
