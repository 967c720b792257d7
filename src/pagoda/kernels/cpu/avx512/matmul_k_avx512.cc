// Super-block weight MatMul (Q2_K..Q6_K, IQ4_XS) with Q8_K activations for
// AVX-512 VNNI.
//
// The reference (reference/vec_dot_k.cc) reduces each super-block to two
// exact integers, scaled and mins, then does one float update per block:
//   sumf += d_x * (d * (float)scaled - dmin * (float)mins).
// Here lane l of every vector is weight row j0 + l of a 16-row panel, so no
// horizontal sums are needed: one VPDPBUSD adds 4 products of a sub-block to
// all 16 rows, VPMULLD applies the sub-block scales, and one VPDPWSSD per
// pair of Q8_K bsums adds the minimums (or the correction for the unsigned
// bias of the stored values). The integers are exact in any order, and the
// float update is the reference's, lane by lane, in the same super-block
// order, so results equal it bit for bit whatever the batch.
//
// Super-block b of the panel is unpacked once (k_unpack_avx512.h) into an
// L1-resident scratch and every x row streams past it, up to 4 at a time
// sharing each weight vector; y carries the running sums between super-blocks.
// A single x row (decode) uses the weight vectors as they are unpacked.
#include "pagoda/kernels/cpu/avx512/avx512_kernels.h"
#include "pagoda/kernels/cpu/avx512/k_unpack_avx512.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {

static_assert(sizeof(PackedK) <= kKScratchBytesPerSuperBlock);

__m512i Broadcast32(const void* p) { return _mm512_set1_epi32(Load32(p)); }

// R x rows against an unpacked super-block, sharing each weight vector.
template <typename T, int R>
void Tile(const PackedK& p, const BlockQ8_K* x, int64_t i0, int64_t nb, int64_t b, float* y, int64_t ldy,
          bool first, __mmask16 store) {
  constexpr int kVecs = T::kSub / 4;  // weight vectors per sub-block
  const BlockQ8_K* xr[R];
  float* yr[R];
  __m512i scaled[R];
  for (int r = 0; r < R; ++r) {
    xr[r] = x + (i0 + r) * nb + b;
    yr[r] = y + (i0 + r) * ldy;
    scaled[r] = _mm512_setzero_si512();
  }
  for (int s = 0; s < 256 / T::kSub; ++s) {
    __m512i dot[R];
    for (int r = 0; r < R; ++r) dot[r] = _mm512_setzero_si512();
    for (int t = 0; t < kVecs; ++t) {
      const int v = s * kVecs + t;
      const __m512i w = _mm512_load_si512(p.w + v);
      for (int r = 0; r < R; ++r) dot[r] = _mm512_dpbusd_epi32(dot[r], w, Broadcast32(xr[r]->qs + 4 * v));
    }
    const __m512i scale = _mm512_load_si512(p.scale + s);
    for (int r = 0; r < R; ++r) scaled[r] = _mm512_add_epi32(scaled[r], _mm512_mullo_epi32(dot[r], scale));
  }
  AddKTerm<T::kMins, R>(p, xr, scaled, yr, first, store);
}

// Each sink prefetches one slice of the next panel per weight vector, 64
// per super-block: a burst of a super-block's worth of prefetches would
// fill the miss buffers and stall the unpacking.
struct Ahead {
  const PanelPrefetch* prefetch;
  int64_t b;  // the super-block being unpacked
  [[gnu::always_inline]] void operator()(int v) const { prefetch->Slice(64 * b + v); }
};

// A sink that stores the weight vectors for the x rows that follow.
struct StoreWeights {
  PackedK* out;
  Ahead ahead;
  void operator()(int v, __m512i w) const {
    ahead(v);
    _mm512_store_si512(out->w + v, w);
  }
};

// A sink that uses each weight vector at once for a single x row (decode),
// saving its store and reload; the scales are already in p.
template <int kSub>
struct DotOneRow {
  static constexpr int kVecs = kSub / 4;
  const PackedK* p;
  const int8_t* xq;
  Ahead ahead;
  __m512i dot[256 / kSub];
  __m512i scaled;
  DotOneRow(const PackedK* packed, const int8_t* x, Ahead next)
      : p(packed), xq(x), ahead(next), scaled(_mm512_setzero_si512()) {
    for (__m512i& d : dot) d = _mm512_setzero_si512();
  }
  void operator()(int v, __m512i w) {
    ahead(v);
    const int s = v / kVecs;
    dot[s] = _mm512_dpbusd_epi32(dot[s], w, Broadcast32(xq + 4 * v));
    // The last vector of a sub-block comes after its others.
    if (v % kVecs == kVecs - 1) {
      scaled = _mm512_add_epi32(scaled, _mm512_mullo_epi32(dot[s], _mm512_load_si512(p->scale + s)));
    }
  }
};

// The planes of super-block b of the panel at row j0, where w was repacked
// at load: T::kGathered vectors per super-block, panel after panel.
template <typename T>
const __m512i* SuperBlockPlanes(const MatrixView& w, int64_t j0, int64_t b) {
  return static_cast<const __m512i*>(w.panels) + ((j0 / kPanelRows) * (w.cols / kSuperBlock) + b) * T::kGathered;
}

// Super-block b of the 16 GGUF rows of the panel at row j0, `rows` of them
// in the matrix (the rest repeat its last).
KRows SuperBlockRows(const MatrixView& w, int64_t j0, int64_t rows, int64_t b) {
  const int64_t block_bytes = DTypeBlockBytes(w.dtype);
  const int64_t row_bytes = w.cols / kSuperBlock * block_bytes;
  KRows src;
  for (int r = 0; r < 16; ++r) {
    src.row[r] = static_cast<const uint8_t*>(w.data) + (j0 + (r < rows ? r : rows - 1)) * row_bytes + b * block_bytes;
  }
  return src;
}

// Calls unpack(src) with the source of super-block b of the panel at row
// j0 (`rows` of its rows in the matrix): its planes, or its GGUF rows.
template <typename T, typename F>
void WithSuperBlock(const MatrixView& w, int64_t j0, int rows, int64_t b, F unpack) {
  if (w.panels != nullptr) {
    KReplay src{SuperBlockPlanes<T>(w, j0, b)};
    unpack(src);
    return;
  }
  KRows src = SuperBlockRows(w, j0, rows, b);
  unpack(src);
}

// The next panel's bytes, for decode's prefetch: in the planes, or in the rows.
template <typename T>
PanelPrefetch NextPanel(const MatrixView& w, int64_t j0) {
  const int64_t nb = w.cols / kSuperBlock;
  if (w.panels != nullptr) {
    return PanelPrefetch(w.panels, nb * T::kGathered * 64, j0 / kPanelRows + 1, 1,
                         (w.rows + kPanelRows - 1) / kPanelRows, 64 * nb);
  }
  return PanelPrefetch(w.data, nb * DTypeBlockBytes(w.dtype), j0 + kPanelRows, kPanelRows, w.rows, 64 * nb);
}

template <typename T>
void Panels(const BlockQ8_K* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end,
            PackedK* packed, float* y) {
  const int64_t nb = w.cols / kSuperBlock;
  for (int64_t j0 = row_begin; j0 < row_end; j0 += kPanelRows) {
    const int rows = static_cast<int>(row_end - j0 < kPanelRows ? row_end - j0 : kPanelRows);
    const __mmask16 store = FirstLanes(rows);
    const PanelPrefetch prefetch = NextPanel<T>(w, j0);
    for (int64_t b = 0; b < nb; ++b) {
      const Ahead ahead{&prefetch, b};
      const bool first = b == 0;
      if (m == 1) {
        DotOneRow<T::kSub> dot(packed, x[b].qs, ahead);
        WithSuperBlock<T>(w, j0, rows, b, [&](auto& src) { T::Unpack(src, packed, dot); });
        const BlockQ8_K* xr[1] = {x + b};
        float* yr[1] = {y + j0};
        AddKTerm<T::kMins, 1>(*packed, xr, &dot.scaled, yr, first, store);
        continue;
      }
      StoreWeights sink{packed, ahead};
      WithSuperBlock<T>(w, j0, rows, b, [&](auto& src) { T::Unpack(src, packed, sink); });
      int64_t i = 0;
      for (; i + 4 <= m; i += 4) Tile<T, 4>(*packed, x, i, nb, b, y + j0, w.rows, first, store);
      switch (m - i) {
        case 3: Tile<T, 3>(*packed, x, i, nb, b, y + j0, w.rows, first, store); break;
        case 2: Tile<T, 2>(*packed, x, i, nb, b, y + j0, w.rows, first, store); break;
        case 1: Tile<T, 1>(*packed, x, i, nb, b, y + j0, w.rows, first, store); break;
        default: break;
      }
    }
  }
}

// Records the planes of panels [panel_begin, panel_end) of w into `planes`.
template <typename T>
void PackPlanes(const MatrixView& w, int64_t panel_begin, int64_t panel_end, void* planes) {
  const int64_t nb = w.cols / kSuperBlock;
  // The unpacked super-block itself is not kept.
  PackedK unpacked;
  const PanelPrefetch none(w.data, DTypeRowBytes(w.dtype, w.cols), w.rows, kPanelRows, w.rows, 64);
  StoreWeights sink{&unpacked, Ahead{&none, 0}};
  for (int64_t p = panel_begin; p < panel_end; ++p) {
    const int64_t j0 = p * kPanelRows;
    const int64_t rows = w.rows - j0 < kPanelRows ? w.rows - j0 : kPanelRows;
    for (int64_t b = 0; b < nb; ++b) {
      KRecorder src{SuperBlockRows(w, j0, rows, b), static_cast<__m512i*>(planes) + (p * nb + b) * T::kGathered};
      // Exactly T::kGathered vectors: the packed-view tests fail if that count is off.
      T::Unpack(src, &unpacked, sink);
    }
  }
}

// Rows [i0, i0 + count) of x past an unpacked super-block b, four at a time.
template <typename T>
void PackedRows(const PackedK& p, const BlockQ8_K* x, int64_t i0, int64_t count, int64_t nb, int64_t b, float* y,
                int64_t ldy, bool first, __mmask16 store) {
  const int64_t end = i0 + count;
  int64_t i = i0;
  for (; i + 4 <= end; i += 4) Tile<T, 4>(p, x, i, nb, b, y, ldy, first, store);
  switch (end - i) {
    case 3: Tile<T, 3>(p, x, i, nb, b, y, ldy, first, store); break;
    case 2: Tile<T, 2>(p, x, i, nb, b, y, ldy, first, store); break;
    case 1: Tile<T, 1>(p, x, i, nb, b, y, ldy, first, store); break;
    default: break;
  }
}

// Calls f with the traits of dtype as a template argument.
template <typename F>
void WithTraits(DType dtype, F f) {
  switch (dtype) {
    case DType::kQ2_K: f.template operator()<Q2K>(); return;
    case DType::kQ3_K: f.template operator()<Q3K>(); return;
    case DType::kQ4_K: f.template operator()<Q4K>(); return;
    case DType::kQ5_K: f.template operator()<Q5K>(); return;
    case DType::kQ6_K: f.template operator()<Q6K>(); return;
    case DType::kIQ4_XS: f.template operator()<IQ4XS>(); return;
    default: return;
  }
}

}  // namespace

void PackKSuperBlock(const MatrixView& w, int64_t j0, int rows, int64_t b, void* packed) {
  // No next panel to prefetch: batches large enough to pack for are not
  // bound by memory.
  const PanelPrefetch none(w.data, DTypeRowBytes(w.dtype, w.cols), w.rows, kPanelRows, w.rows, 64);
  StoreWeights sink{static_cast<PackedK*>(packed), Ahead{&none, 0}};
  WithTraits(w.dtype, [&]<typename T>() {
    WithSuperBlock<T>(w, j0, rows, b, [&](auto& src) { T::Unpack(src, static_cast<PackedK*>(packed), sink); });
  });
}

int64_t KPanelPlanesBytes(const MatrixView& w) {
  int64_t bytes = 0;
  WithTraits(w.dtype, [&]<typename T>() {
    bytes = (w.rows + kPanelRows - 1) / kPanelRows * (w.cols / kSuperBlock) * T::kGathered * 64;
  });
  return bytes;
}

void PackKPanelPlanes(const MatrixView& w, int64_t panel_begin, int64_t panel_end, void* planes) {
  WithTraits(w.dtype, [&]<typename T>() { PackPlanes<T>(w, panel_begin, panel_end, planes); });
}

void PackedKRows(DType dtype, const void* packed, const BlockQ8_K* x, int64_t i0, int64_t count, int64_t nb,
                 int64_t b, float* y, int64_t ldy, bool first, int rows) {
  const auto& p = *static_cast<const PackedK*>(packed);
  WithTraits(dtype, [&]<typename T>() { PackedRows<T>(p, x, i0, count, nb, b, y, ldy, first, FirstLanes(rows)); });
}

void PanelsK(const BlockQ8_K* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end,
             void* scratch, float* y) {
  auto* packed = static_cast<PackedK*>(scratch);
  switch (w.dtype) {
    case DType::kQ2_K: Panels<Q2K>(x, m, w, row_begin, row_end, packed, y); break;
    case DType::kQ3_K: Panels<Q3K>(x, m, w, row_begin, row_end, packed, y); break;
    case DType::kQ4_K: Panels<Q4K>(x, m, w, row_begin, row_end, packed, y); break;
    case DType::kQ5_K: Panels<Q5K>(x, m, w, row_begin, row_end, packed, y); break;
    case DType::kQ6_K: Panels<Q6K>(x, m, w, row_begin, row_end, packed, y); break;
    case DType::kIQ4_XS: Panels<IQ4XS>(x, m, w, row_begin, row_end, packed, y); break;
    default: break;
  }
}

}  // namespace pagoda::kernels::cpu::avx512
