// GGML's K-quant sub-block searches (make_qx_quants, make_q3_quants,
// make_qkx2_quants), as its reference quantizers call them: no importance
// weights. Products are written in GGML's order, e.g. w * x * l is
// (w * x) * l while w * l * x is (w * l) * x; the module is built with
// -ffp-contract=off so none of them fuses into an FMA.
#include "pagoda/quantize/k_scale_search.h"

#include <algorithm>
#include <cmath>

#include "pagoda/quantize/nearest_int.h"

namespace pagoda::quantize {
namespace {

int Clamp(int l, int lo, int hi) { return std::max(lo, std::min(hi, l)); }

// The element of largest magnitude (the first of equals), and its magnitude.
struct Extremum {
  float value = 0.0f;
  float magnitude = 0.0f;
};

Extremum LargestMagnitude(const float* x, int n) {
  Extremum e;
  for (int i = 0; i < n; ++i) {
    const float ax = std::fabs(x[i]);
    if (ax > e.magnitude) {
      e.magnitude = ax;
      e.value = x[i];
    }
  }
  return e;
}

// The sums of the least-squares scale sumlx / suml2 with weights x^2.
struct LevelSums {
  float sumlx = 0.0f;
  float suml2 = 0.0f;
};

// Symmetric levels of x at an inverse scale, in [-nmax, nmax), with their
// sums; levels may be null when only the sums are wanted.
LevelSums QuantizeSymmetric(const float* x, int n, int nmax, float iscale, int8_t* levels) {
  LevelSums s;
  for (int i = 0; i < n; ++i) {
    const int l = Clamp(NearestInt(iscale * x[i]), -nmax, nmax - 1);
    if (levels) levels[i] = static_cast<int8_t>(l);
    const float fl = static_cast<float>(l);
    const float w = x[i] * x[i];
    s.sumlx += w * x[i] * fl;
    s.suml2 += w * fl * fl;
  }
  return s;
}

void ShiftLevels(int8_t* levels, int n, int by) {
  for (int i = 0; i < n; ++i) levels[i] = static_cast<int8_t>(levels[i] + by);
}

// One pass of RefineSymmetricLevels over the elements; returns how many
// levels it moved.
int RefinePass(const float* x, int n, int nmax, int8_t* levels, LevelSums& s) {
  int changed = 0;
  for (int i = 0; i < n; ++i) {
    const float w = x[i] * x[i];
    const float old = static_cast<float>(levels[i]);
    float slx = s.sumlx - w * x[i] * old;
    if (!(slx > 0)) continue;
    float sl2 = s.suml2 - w * old * old;
    const int moved = Clamp(NearestInt(x[i] * sl2 / slx), -nmax, nmax - 1);
    if (moved == levels[i]) continue;
    const float fm = static_cast<float>(moved);
    slx += w * x[i] * fm;
    sl2 += w * fm * fm;
    if (sl2 > 0 && slx * slx * s.suml2 > s.sumlx * s.sumlx * sl2) {
      levels[i] = static_cast<int8_t>(moved);
      s = {slx, sl2};
      ++changed;
    }
  }
  return changed;
}

// x ~ scale * l + min, min <= 0.
struct AffineFit {
  float scale = 0.0f;
  float min = 0.0f;
};

// Weighted absolute (use_mad) or squared error of levels under a fit.
float FitError(const float* x, const float* weights, int n, const uint8_t* levels, const AffineFit& fit,
               bool use_mad) {
  float error = 0.0f;
  for (int i = 0; i < n; ++i) {
    float diff = fit.scale * static_cast<float>(levels[i]) + fit.min - x[i];
    diff = use_mad ? std::fabs(diff) : diff * diff;
    error += weights[i] * diff;
  }
  return error;
}

void QuantizeAffine(const float* x, int n, int nmax, float iscale, float min, uint8_t* levels) {
  for (int i = 0; i < n; ++i) {
    levels[i] = static_cast<uint8_t>(Clamp(NearestInt(iscale * (x[i] - min)), 0, nmax));
  }
}

// What SearchScaleAndMin knows of the sub-block before it searches.
struct AffineProblem {
  const float* x;
  const float* weights;
  int n;
  float min;  // clamped to at most 0
  float max;
  float sum_w;
  float sum_x;  // sum of w * x
};

AffineProblem Summarize(const float* x, const float* weights, int n) {
  AffineProblem p{x, weights, n, x[0], x[0], weights[0], weights[0] * x[0]};
  for (int i = 1; i < n; ++i) {
    if (x[i] < p.min) p.min = x[i];
    if (x[i] > p.max) p.max = x[i];
    p.sum_w += weights[i];
    p.sum_x += weights[i] * x[i];
  }
  if (p.min > 0) p.min = 0;
  return p;
}

// The weighted least-squares fit of x to levels, with min held at 0 when
// the free fit puts it above; false when the levels do not determine one.
bool LeastSquaresFit(const AffineProblem& p, const uint8_t* levels, AffineFit* fit) {
  float sum_l = 0.0f;
  float sum_l2 = 0.0f;
  float sum_xl = 0.0f;
  for (int i = 0; i < p.n; ++i) {
    const float l = static_cast<float>(levels[i]);
    const float w = p.weights[i];
    sum_l += w * l;
    sum_l2 += w * l * l;
    sum_xl += w * l * p.x[i];
  }
  const float det = p.sum_w * sum_l2 - sum_l * sum_l;
  if (!(det > 0)) return false;
  fit->scale = (p.sum_w * sum_xl - p.sum_x * sum_l) / det;
  fit->min = (sum_l2 * p.sum_x - sum_l * sum_xl) / det;
  if (fit->min > 0) {
    fit->min = 0;
    fit->scale = sum_xl / sum_l2;
  }
  return true;
}

}  // namespace

float SearchSymmetricScale(const float* x, int n, int nmax, int8_t* levels) {
  const Extremum e = LargestMagnitude(x, n);
  if (e.magnitude < kGroupMaxEps) {
    std::fill(levels, levels + n, int8_t{0});
    return 0.0f;
  }
  const LevelSums first = QuantizeSymmetric(x, n, nmax, static_cast<float>(-nmax) / e.value, levels);
  float scale = first.suml2 != 0.0f ? first.sumlx / first.suml2 : 0.0f;
  float best = scale * first.sumlx;
  for (int step = -9; step <= 9; ++step) {
    if (step == 0) continue;
    const float iscale = -(static_cast<float>(nmax) + 0.1f * static_cast<float>(step)) / e.value;
    const LevelSums s = QuantizeSymmetric(x, n, nmax, iscale, nullptr);
    if (s.suml2 > 0 && s.sumlx * s.sumlx > best * s.suml2) {
      QuantizeSymmetric(x, n, nmax, iscale, levels);
      scale = s.sumlx / s.suml2;
      best = scale * s.sumlx;
    }
  }
  ShiftLevels(levels, n, nmax);
  return scale;
}

float RefineSymmetricLevels(const float* x, int n, int nmax, int8_t* levels) {
  const Extremum e = LargestMagnitude(x, n);
  if (e.magnitude < kGroupMaxEps) {
    std::fill(levels, levels + n, int8_t{0});
    return 0.0f;
  }
  LevelSums s = QuantizeSymmetric(x, n, nmax, static_cast<float>(-nmax) / e.value, levels);
  for (int pass = 0; pass < 5; ++pass) {
    if (RefinePass(x, n, nmax, levels, s) == 0) break;
  }
  ShiftLevels(levels, n, nmax);
  return s.suml2 > 0.0f ? s.sumlx / s.suml2 : 0.0f;
}

float SearchScaleAndMin(const float* x, const float* weights, int n, const AffineSearch& search, uint8_t* levels,
                        float* neg_min) {
  const AffineProblem p = Summarize(x, weights, n);
  if (p.max == p.min) {
    std::fill(levels, levels + n, uint8_t{0});
    *neg_min = -p.min;
    return 0.0f;
  }
  const float nmax = static_cast<float>(search.nmax);
  const float iscale = nmax / (p.max - p.min);
  AffineFit best{1.0f / iscale, p.min};
  QuantizeAffine(x, n, search.nmax, iscale, p.min, levels);
  float best_error = FitError(x, weights, n, levels, best, search.use_mad);
  // GGML's search steps from the best fit so far: each trial's levels are
  // offset by, and its inverse scale spread over, that fit's minimum.
  uint8_t trial[32];
  for (int step = 0; search.nstep >= 1 && step <= search.nstep; ++step) {
    const float trial_iscale = (search.rmin + search.rdelta * static_cast<float>(step) + nmax) / (p.max - best.min);
    QuantizeAffine(x, n, search.nmax, trial_iscale, best.min, trial);
    AffineFit fit;
    if (!LeastSquaresFit(p, trial, &fit)) continue;
    const float error = FitError(x, weights, n, trial, fit, search.use_mad);
    if (error < best_error) {
      std::copy(trial, trial + n, levels);
      best_error = error;
      best = fit;
    }
  }
  *neg_min = -best.min;
  return best.scale;
}

}  // namespace pagoda::quantize
