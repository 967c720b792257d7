// RmsNorm and RoPE in GGML's arithmetic order, so values track llama.cpp.
#include <cmath>
#include <vector>

#include "pagoda/base/check.h"
#include "pagoda/kernels/cpu/reference/reference.h"

namespace pagoda::kernels::reference {

void RmsNorm(const float* x, const float* weight, int64_t rows, int64_t dim, float eps, float* y) {
  PAGODA_CHECK(dim > 0);
  for (int64_t r = 0; r < rows; ++r, x += dim, y += dim) {
    // Squares are rounded to f32 and summed in double, as ggml_compute_forward_rms_norm does.
    double sum = 0.0;
    for (int64_t i = 0; i < dim; ++i) sum += static_cast<double>(x[i] * x[i]);
    const float mean = static_cast<float>(sum / static_cast<double>(dim));
    const float scale = 1.0f / std::sqrt(mean + eps);
    // GGML scales, then multiplies by the weight in a separate op.
    for (int64_t i = 0; i < dim; ++i) y[i] = (x[i] * scale) * weight[i];
  }
}

void RopeAngles(const int32_t* positions, int64_t tokens, int64_t head_dim, const RopeParams& params,
                float* cos_sin) {
  PAGODA_CHECK(head_dim % 2 == 0);
  const float theta_scale = std::pow(params.freq_base, -2.0f / static_cast<float>(head_dim));
  for (int64_t t = 0; t < tokens; ++t, cos_sin += head_dim) {
    // Angles by repeated multiplication, like ggml_rope_cache_init, rather than
    // one pow per pair; the two differ in the last bits.
    float theta = static_cast<float>(positions[t]);
    for (int64_t i = 0; i < head_dim / 2; ++i, theta *= theta_scale) {
      // As ggml_rope_cache_init and rope_yarn (no YaRN): the factor divides
      // the angle, the linear scale multiplies it, attn_factor scales both.
      const float extrapolated = params.freq_factors != nullptr ? theta / params.freq_factors[i] : theta;
      const float angle = params.freq_scale * extrapolated;
      cos_sin[2 * i] = std::cos(angle) * params.attn_factor;
      cos_sin[2 * i + 1] = std::sin(angle) * params.attn_factor;
    }
  }
}

void RotatePairs(float* x, const float* cos_sin, int64_t tokens, int64_t heads, int64_t head_dim, RopeStyle style) {
  PAGODA_CHECK(head_dim % 2 == 0);
  // Pair i couples dimensions (first(i), first(i) + second): adjacent in the
  // normal style, half a head apart in NeoX's.
  const bool neox = style == RopeStyle::kNeox;
  const int64_t second = neox ? head_dim / 2 : 1;
  for (int64_t t = 0; t < tokens; ++t, cos_sin += head_dim) {
    float* token = x + t * heads * head_dim;
    for (int64_t i = 0; i < head_dim / 2; ++i) {
      const float c = cos_sin[2 * i];
      const float s = cos_sin[2 * i + 1];
      const int64_t first = neox ? i : 2 * i;
      for (int64_t h = 0; h < heads; ++h) {
        float* head = token + h * head_dim;
        const float x0 = head[first];
        const float x1 = head[first + second];
        // As GGML's compiled rotate_pairs (contracted to fused multiply-adds).
        head[first] = std::fma(x0, c, -(x1 * s));
        head[first + second] = std::fma(x0, s, x1 * c);
      }
    }
  }
}

void Rope(float* x, const int32_t* positions, int64_t tokens, int64_t heads, int64_t head_dim,
          const RopeParams& params) {
  std::vector<float> cos_sin(static_cast<size_t>(tokens * head_dim));
  RopeAngles(positions, tokens, head_dim, params, cos_sin.data());
  RotatePairs(x, cos_sin.data(), tokens, heads, head_dim, params.style);
}

}  // namespace pagoda::kernels::reference
