// Weights repacked once at load into the layout that a kernel set reads
// fastest, so that no step pays for rearranging them. On the AVX-512 and
// AMX sets every quantized type becomes panel planes, which hold each 16-row
// panel's bytes in the order its vector loads want them: designed for the
// 32-element block types (cpu/avx512/panel_planes_avx512.h), recorded from
// the unpackers' gathers for the super-block types
// (cpu/avx512/k_unpack_avx512.h). The copy takes about the weights' own
// size; their GGUF bytes stay where they are (mapped from the file), for the
// embedding lookup and any other kernel set.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>

#include "pagoda/kernels/cpu_kernels.h"

namespace pagoda::kernels {

class PackedWeights {
 public:
  PackedWeights() = default;

  // Repacks every view of a type that ctx's kernel set repacks, on ctx's
  // pool, and points the view's `panels` at its copy; other views are left
  // as they are. The copies live as long as the returned object.
  static PackedWeights Pack(ComputeContext& ctx, std::span<MatrixView* const> views);

  int64_t bytes() const { return bytes_; }
  int64_t num_packed() const { return num_packed_; }

 private:
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  std::unique_ptr<void, Free> memory_;
  int64_t bytes_ = 0;
  int64_t num_packed_ = 0;
};

}  // namespace pagoda::kernels
