#include "pagoda/kernels/cpu/amx/tile_permission.h"

#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

namespace pagoda::kernels::cpu {
namespace {

// From Linux's arch/x86/include/uapi/asm/prctl.h and the XSAVE feature numbers.
constexpr int kArchGetXcompPerm = 0x1022;
constexpr int kArchReqXcompPerm = 0x1023;
constexpr int kXfeatureTileData = 18;
constexpr uint64_t kXcr0TileState = (1ull << 17) | (1ull << 18);  // XTILECFG and XTILEDATA

bool CpuHasAmx() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || (c & (1u << 27)) == 0) return false;  // OSXSAVE
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  const bool bf16 = d & (1u << 22), tile = d & (1u << 24), int8 = d & (1u << 25);
  if (!tile || !int8 || !bf16) return false;
  unsigned lo, hi;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  const uint64_t xcr0 = (uint64_t{hi} << 32) | lo;
  return (xcr0 & kXcr0TileState) == kXcr0TileState;
}

bool GrantTileData() {
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureTileData) != 0) return false;
  uint64_t permitted = 0;
  if (syscall(SYS_arch_prctl, kArchGetXcompPerm, &permitted) != 0) return false;
  return (permitted & (1ull << kXfeatureTileData)) != 0;
}

}  // namespace

bool AmxTilesUsable() {
  static const bool usable = CpuHasAmx() && GrantTileData();
  return usable;
}

}  // namespace pagoda::kernels::cpu
