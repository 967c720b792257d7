// The peaks of the machine the benchmarks run on, measured at start-up, so
// that each kernel's rate can be reported as a share of what this CPU does
// (the VMs differ between sessions: Zen 5 without AMX, Xeon with AMX).
#pragma once

#include <cstddef>

namespace pagoda::bench {

struct MachinePeaks {
  double f32_gflops_per_core = 0;  // FMA, the widest vectors the CPU has
  double int8_gops_per_core = 0;   // VPDPBUSD (AVX-512 VNNI); 0 without it
  double amx_int8_gops_per_core = 0;  // TDPBSSD (AMX-INT8); 0 without it or its permission
  double dram_gbs_one_thread = 0;  // StreamReadGbs of 256 MiB
  double dram_gbs_all_threads = 0;
};

// Measures each peak for about a tenth of a second.
MachinePeaks MeasureMachinePeaks();

// GB/s of `threads` threads reading disjoint parts of one buffer of `bytes`
// with the widest loads the CPU has, the best of three passes after one
// that faults the pages in: the bandwidth of whichever cache or memory
// holds a working set of that size, for kernels that stream one.
double StreamReadGbs(size_t bytes, int threads);

}  // namespace pagoda::bench
