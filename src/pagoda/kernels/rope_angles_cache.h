// The (cos, sin) table of the last RoPE call, kept for the next. A step's
// layers rotate Q and K at the same positions with the same parameters, so
// the table is computed once per step instead of twice per layer (60 times
// for the default model): sin and cos were about 1.4% of a 512-token
// prompt's time, and the per-head loop that recomputed them another 3%.
#pragma once

#include <cstdint>
#include <vector>

#include "pagoda/kernels/cpu_kernels.h"

namespace pagoda::kernels {

class RopeAnglesCache {
 public:
  // reference::RopeAngles of these arguments, [tokens][head_dim] floats:
  // the kept table when the positions (by value), head size and parameters
  // equal the last call's, else a new one. Valid until the next call.
  const float* Get(const int32_t* positions, int64_t tokens, int64_t head_dim, const RopeParams& params);
  // Whether Get of these arguments would return the kept table (and so
  // write nothing).
  bool Matches(const int32_t* positions, int64_t tokens, int64_t head_dim, const RopeParams& params) const;

 private:
  std::vector<int32_t> positions_;
  int64_t head_dim_ = 0;
  RopeParams params_;
  std::vector<float> cos_sin_;
};

}  // namespace pagoda::kernels
