// Whether this process can run AMX tile instructions. Linux keeps the tile
// data's 8 KiB of state off by default: a process must ask for it
// (arch_prctl ARCH_REQ_XCOMP_PERM) before any of its threads touches a
// tile, or the first tile instruction dies with SIGILL.
#pragma once

namespace pagoda::kernels::cpu {

// True when CPUID reports AMX-TILE, AMX-INT8 and AMX-BF16, XCR0 shows the OS saving
// tile state, and Linux granted this process the tile data permission. The
// first call asks for the permission (process-wide, for threads that exist
// and threads to come); later calls return the first answer.
bool AmxTilesUsable();

}  // namespace pagoda::kernels::cpu
