// The sub-block searches of GGML's K-quants without an importance matrix:
// for a handful of elements, the integer levels and the scale (and minimum)
// that the super-block packers then quantize in turn. Each is GGML's
// algorithm with its float arithmetic in the same order, since a different
// rounding anywhere can flip a level and so a byte of the file.
#pragma once

#include <cstdint>

namespace pagoda::quantize {

// Q6_K's search (make_qx_quants with rmse_type 1): levels l in [-nmax, nmax)
// for x ~ scale * l, trying the inverse scales -(nmax + 0.1 k) / max for k
// in -9..9 (max the element of largest magnitude) and keeping the one whose
// least-squares scale, with weights x^2, explains most of x. Writes l + nmax
// to levels (all 0 for a group below kGroupMaxEps) and returns the scale.
float SearchSymmetricScale(const float* x, int n, int nmax, int8_t* levels);

// Q3_K's search (make_q3_quants with do_rmse): starts from the levels of
// the inverse scale -nmax / max, then moves single levels to where the
// least-squares scale (weights x^2) puts them while that improves the fit,
// for at most five passes. Writes l + nmax (all 0 below kGroupMaxEps) and
// returns the least-squares scale.
float RefineSymmetricLevels(const float* x, int n, int nmax, int8_t* levels);

// How SearchScaleAndMin steps its inverse scale: (nmax + rmin + rdelta k) /
// (max - min) for k in 0..nstep, and whether it measures error as absolute
// (use_mad) or squared difference.
struct AffineSearch {
  int nmax;
  float rmin;
  float rdelta;
  int nstep;
  bool use_mad;
};

// The asymmetric search of Q2_K, Q4_K and Q5_K (make_qkx2_quants): levels l
// in [0, nmax] for x ~ scale * l - neg_min, with min <= 0, choosing among
// the search's inverse scales the weighted least-squares fit of least
// weighted error. n is at most 32. Writes the levels and -min to *neg_min,
// returns the scale (0 when all elements are equal after clamping min to 0).
float SearchScaleAndMin(const float* x, const float* weights, int n, const AffineSearch& search, uint8_t* levels,
                        float* neg_min);

}  // namespace pagoda::quantize
