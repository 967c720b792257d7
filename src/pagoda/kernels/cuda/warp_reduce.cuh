// Reductions across the lanes of a warp, for the CUDA kernels' device code.
// Every lane of the warp must call them (they shuffle with a full mask).
#pragma once

namespace pagoda::kernels::cuda {

inline constexpr unsigned kFullWarpMask = 0xffffffffu;

__device__ __forceinline__ float WarpMax(float x) {
#pragma unroll
  for (int offset = 16; offset >= 1; offset /= 2) x = fmaxf(x, __shfl_xor_sync(kFullWarpMask, x, offset));
  return x;
}

__device__ __forceinline__ float WarpSum(float x) {
#pragma unroll
  for (int offset = 16; offset >= 1; offset /= 2) x += __shfl_xor_sync(kFullWarpMask, x, offset);
  return x;
}

// Sums kN values v[0..kN) over each aligned group of 2 * kOffset lanes and
// spreads the totals over the group: afterwards v[0] on lane l holds the
// group's total of value (l % (2 * kOffset)) / (2 * kOffset / kN). Each step
// sends the partner lane the half of the values that it keeps and keeps the
// other half, so the kN sums cost kN - 1 + log2(2 * kOffset / kN) shuffles
// instead of kN * log2(2 * kOffset). kN and 2 * kOffset are powers of two,
// kN <= 2 * kOffset <= 32.
template <int kSize, int kN, int kOffset>
__device__ __forceinline__ void SpreadSum(float (&v)[kSize], int lane) {
  static_assert(kN <= kSize && (kOffset == 0 ? kN == 1 : kN <= 2 * kOffset));
  if constexpr (kOffset > 0) {
    if constexpr (kN > 1) {
      // The lower lane keeps values [0, kN/2), the upper lane [kN/2, kN),
      // both in v[0, kN/2).
      const bool upper = (lane & kOffset) != 0;
#pragma unroll
      for (int i = 0; i < kN / 2; ++i) {
        const float send = upper ? v[i] : v[i + kN / 2];
        const float keep = upper ? v[i + kN / 2] : v[i];
        v[i] = keep + __shfl_xor_sync(kFullWarpMask, send, kOffset);
      }
      SpreadSum<kSize, kN / 2, kOffset / 2>(v, lane);
    } else {
      v[0] += __shfl_xor_sync(kFullWarpMask, v[0], kOffset);
      SpreadSum<kSize, 1, kOffset / 2>(v, lane);
    }
  }
}

}  // namespace pagoda::kernels::cuda
