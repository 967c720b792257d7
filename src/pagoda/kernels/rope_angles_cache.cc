#include "pagoda/kernels/rope_angles_cache.h"

#include <algorithm>

#include "pagoda/kernels/cpu/reference/reference.h"

namespace pagoda::kernels {

bool RopeAnglesCache::Matches(const int32_t* positions, int64_t tokens, int64_t head_dim,
                              const RopeParams& params) const {
  return head_dim == head_dim_ && params.style == params_.style && params.freq_base == params_.freq_base &&
         params.freq_scale == params_.freq_scale && params.freq_factors == params_.freq_factors &&
         params.attn_factor == params_.attn_factor && static_cast<size_t>(tokens) == positions_.size() &&
         std::equal(positions, positions + tokens, positions_.begin());
}

const float* RopeAnglesCache::Get(const int32_t* positions, int64_t tokens, int64_t head_dim,
                                  const RopeParams& params) {
  if (!Matches(positions, tokens, head_dim, params)) {
    positions_.assign(positions, positions + tokens);
    head_dim_ = head_dim;
    params_ = params;
    cos_sin_.resize(static_cast<size_t>(tokens * head_dim));
    reference::RopeAngles(positions, tokens, head_dim, params, cos_sin_.data());
  }
  return cos_sin_.data();
}

}  // namespace pagoda::kernels
