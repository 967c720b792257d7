// Packs the panel planes of panel_planes_avx512.h from the GGUF rows, with
// the same gathers the panels use on rows that were not packed; the
// super-block types' planes come from matmul_k_avx512.cc.

#include "pagoda/kernels/cpu/avx512/avx512_util.h"
#include "pagoda/kernels/cpu/avx512/avx512_kernels.h"
#include "pagoda/kernels/cpu/avx512/panel_planes_avx512.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {

template <Kind K>
void PackPanels(const MatrixView& w, int64_t panel_begin, int64_t panel_end, void* out) {
  using P = PanelPlanes<K>;
  const int64_t nb = w.cols / 32;
  for (int64_t p = panel_begin; p < panel_end; ++p) {
    const int64_t j0 = p * kPanelRows;
    const int rows = static_cast<int>(w.rows - j0 < kPanelRows ? w.rows - j0 : kPanelRows);
    const RowSource<K> src(w, j0, rows);
    const PanelPlanes<K, uint8_t> planes(static_cast<uint8_t*>(out), nb, p);
    for (int64_t b = 0; b < nb; ++b) {
      __m512i o[4];
      for (int half = 0; half < P::kQsVectors / 4; ++half) {
        src.Quants(b, half, o);
        auto* v = reinterpret_cast<__m512i*>(planes.qs + b * P::kQsBytes) + 4 * half;
        for (int t = 0; t < 4; ++t) _mm512_store_si512(v + t, o[t]);
      }
      const BlockHeader h = src.Header(b);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(planes.d + b * 32), h.d);
      if constexpr (kHasMinimum<K>) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(planes.m + b * 32), h.m);
      }
      if constexpr (P::kHasQh) _mm512_store_si512(planes.qh + b * 64, h.qh);
    }
  }
}

// Calls f with the Kind of a 32-element block type; returns false for any other type.
template <typename F>
bool WithBlockKind(DType dtype, F f) {
  switch (dtype) {
    case DType::kQ4_0: f.template operator()<Kind::kQ4_0>(); return true;
    case DType::kQ4_1: f.template operator()<Kind::kQ4_1>(); return true;
    case DType::kQ8_0: f.template operator()<Kind::kQ8_0>(); return true;
    case DType::kQ5_0: f.template operator()<Kind::kQ5_0>(); return true;
    case DType::kQ5_1: f.template operator()<Kind::kQ5_1>(); return true;
    case DType::kIQ4_NL: f.template operator()<Kind::kIQ4_NL>(); return true;
    default: return false;
  }
}

}  // namespace

int64_t PanelPlanesBytes(const MatrixView& w) {
  int64_t bytes = 0;
  const bool block_kind = WithBlockKind(w.dtype, [&]<Kind K>() {
    bytes = (w.rows + kPanelRows - 1) / kPanelRows * PanelPlanes<K>::PanelBytes(w.cols / 32);
  });
  return block_kind ? bytes : KPanelPlanesBytes(w);
}

void PackPanelPlanes(const MatrixView& w, int64_t panel_begin, int64_t panel_end, void* planes) {
  if (!WithBlockKind(w.dtype, [&]<Kind K>() { PackPanels<K>(w, panel_begin, panel_end, planes); })) {
    PackKPanelPlanes(w, panel_begin, panel_end, planes);
  }
}

}  // namespace pagoda::kernels::cpu::avx512
