#include "machine_peaks.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstdint>
#include <thread>
#include <vector>

#include "pagoda/kernels/cpu/amx/tile_permission.h"

namespace pagoda::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int64_t kIterations = 1 << 22;

double Seconds(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// 12 independent accumulators hide the FMA latency on every x86 core seen.
__attribute__((target("avx512f"))) double Avx512FmaGflops() {
  __m512 acc[12];
  for (auto& a : acc) a = _mm512_set1_ps(1.0f);
  const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
  const auto start = Clock::now();
  for (int64_t i = 0; i < kIterations; ++i) {
    for (auto& a : acc) a = _mm512_fmadd_ps(a, m, c);
  }
  const double s = Seconds(start);
  alignas(64) float lanes[16];
  float sink = 0;
  for (auto& a : acc) {
    _mm512_store_ps(lanes, a);
    for (float l : lanes) sink += l;
  }
  volatile float keep = sink;
  (void)keep;
  return 12.0 * 16 * 2 * kIterations / s * 1e-9;
}

__attribute__((target("avx2,fma"))) double Avx2FmaGflops() {
  __m256 acc[12];
  for (auto& a : acc) a = _mm256_set1_ps(1.0f);
  const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
  const auto start = Clock::now();
  for (int64_t i = 0; i < kIterations; ++i) {
    for (auto& a : acc) a = _mm256_fmadd_ps(a, m, c);
  }
  const double s = Seconds(start);
  alignas(32) float lanes[8];
  float sink = 0;
  for (auto& a : acc) {
    _mm256_store_ps(lanes, a);
    for (float l : lanes) sink += l;
  }
  volatile float keep = sink;
  (void)keep;
  return 12.0 * 8 * 2 * kIterations / s * 1e-9;
}

// One VPDPBUSD is 64 byte products and their sums: 128 operations.
__attribute__((target("avx512f,avx512vnni"))) double VnniGops() {
  __m512i acc[12];
  for (auto& a : acc) a = _mm512_setzero_si512();
  const __m512i u = _mm512_set1_epi8(3), s = _mm512_set1_epi8(-2);
  const auto start = Clock::now();
  for (int64_t i = 0; i < kIterations; ++i) {
    for (auto& a : acc) a = _mm512_dpbusd_epi32(a, u, s);
  }
  const double sec = Seconds(start);
  alignas(64) int32_t lanes[16];
  int64_t sink = 0;
  for (auto& a : acc) {
    _mm512_store_si512(lanes, a);
    for (int32_t l : lanes) sink += l;
  }
  volatile int64_t keep = sink;
  (void)keep;
  return 12.0 * 128 * kIterations / sec * 1e-9;
}

// One TDPBSSD on full tiles (16 x 64 bytes by 64 x 16) is 16,384 byte
// products and their sums: 32,768 operations. Four independent
// accumulator tiles, both sources loaded once; the configuration is a
// constant object, since LDTILECFG's inline assembly claims to read only 8
// of its bytes.
struct alignas(64) TileConfig {
  uint8_t palette, start_row, reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
};
constexpr TileConfig kFullTiles = {1, 0, {}, {64, 64, 64, 64, 64, 64}, {16, 16, 16, 16, 16, 16}};

__attribute__((target("amx-tile,amx-int8"))) double AmxInt8Gops() {
  // The sources' values do not change the rate.
  alignas(64) static int8_t a[16 * 64], b[16 * 64];
  constexpr int64_t kTileIterations = kIterations / 16;
  _tile_loadconfig(&kFullTiles);
  _tile_loadd(0, a, 64);
  _tile_loadd(1, b, 64);
  _tile_zero(2);
  _tile_zero(3);
  _tile_zero(4);
  _tile_zero(5);
  const auto start = Clock::now();
  for (int64_t i = 0; i < kTileIterations; ++i) {
    _tile_dpbssd(2, 0, 1);
    _tile_dpbssd(3, 0, 1);
    _tile_dpbssd(4, 0, 1);
    _tile_dpbssd(5, 0, 1);
  }
  alignas(64) static int32_t out[16 * 16];
  _tile_stored(2, out, 64);
  const double sec = Seconds(start);
  _tile_release();
  volatile int32_t keep = out[0];
  (void)keep;
  return 4.0 * 32768 * static_cast<double>(kTileIterations) / sec * 1e-9;
}

// One thread's part of a stream, `reps` times: four independent sums of
// 64-byte loads.
__attribute__((target("avx512f"))) float SumAvx512(const float* p, size_t floats, int reps) {
  __m512 a = _mm512_setzero_ps(), b = a, c = a, d = a;
  for (int r = 0; r < reps; ++r) {
    for (size_t i = 0; i + 64 <= floats; i += 64) {
      a = _mm512_add_ps(a, _mm512_load_ps(p + i));
      b = _mm512_add_ps(b, _mm512_load_ps(p + i + 16));
      c = _mm512_add_ps(c, _mm512_load_ps(p + i + 32));
      d = _mm512_add_ps(d, _mm512_load_ps(p + i + 48));
    }
  }
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, _mm512_add_ps(_mm512_add_ps(a, b), _mm512_add_ps(c, d)));
  float sum = 0;
  for (float l : lanes) sum += l;
  return sum;
}

__attribute__((target("avx2"))) float SumAvx2(const float* p, size_t floats, int reps) {
  __m256 a = _mm256_setzero_ps(), b = a, c = a, d = a;
  for (int r = 0; r < reps; ++r) {
    for (size_t i = 0; i + 32 <= floats; i += 32) {
      a = _mm256_add_ps(a, _mm256_load_ps(p + i));
      b = _mm256_add_ps(b, _mm256_load_ps(p + i + 8));
      c = _mm256_add_ps(c, _mm256_load_ps(p + i + 16));
      d = _mm256_add_ps(d, _mm256_load_ps(p + i + 24));
    }
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, _mm256_add_ps(_mm256_add_ps(a, b), _mm256_add_ps(c, d)));
  float sum = 0;
  for (float l : lanes) sum += l;
  return sum;
}

}  // namespace

double StreamReadGbs(size_t bytes, int threads) {
  const auto parts = static_cast<size_t>(threads);
  const size_t per = bytes / sizeof(float) / parts / 64 * 64;
  auto* data = static_cast<float*>(std::aligned_alloc(64, per * parts * sizeof(float)));
  std::fill(data, data + per * parts, 1.0f);
  // Each pass reads at least 1 GiB, so that a pass lasts tens of ms.
  const int reps = static_cast<int>(std::max<size_t>(1, (size_t{1} << 30) / (per * parts * sizeof(float))));
  const bool avx512 = __builtin_cpu_supports("avx512f");
  const bool avx2 = __builtin_cpu_supports("avx2");
  auto sum = [&](const float* p, int n) {
    if (avx512) return SumAvx512(p, per, n);
    if (avx2) return SumAvx2(p, per, n);
    float s = 0;
    for (int r = 0; r < n; ++r) {
      for (size_t i = 0; i < per; ++i) s += p[i];
    }
    return s;
  };
  for (size_t t = 0; t < parts; ++t) sum(data + per * t, 1);  // fault the pages in
  double best = 0;
  std::vector<float> sums(parts);
  std::vector<double> seconds(parts);
  for (int pass = 0; pass < 3; ++pass) {
    std::atomic<bool> go{false};
    std::vector<std::thread> workers;
    for (size_t t = 0; t < parts; ++t) {
      workers.emplace_back([&, t] {
        while (!go.load(std::memory_order_acquire)) {
        }
        const auto start = Clock::now();
        sums[t] = sum(data + per * t, reps);
        seconds[t] = Seconds(start);
      });
    }
    go.store(true, std::memory_order_release);
    for (auto& w : workers) w.join();
    const double slowest = *std::max_element(seconds.begin(), seconds.end());
    best = std::max(best, static_cast<double>(per * parts * sizeof(float)) * reps / slowest * 1e-9);
  }
  volatile float keep = sums[0];
  (void)keep;
  std::free(data);
  return best;
}

MachinePeaks MeasureMachinePeaks() {
  MachinePeaks peaks;
  if (__builtin_cpu_supports("avx512f")) {
    peaks.f32_gflops_per_core = Avx512FmaGflops();
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    peaks.f32_gflops_per_core = Avx2FmaGflops();
  }
  if (__builtin_cpu_supports("avx512vnni")) peaks.int8_gops_per_core = VnniGops();
  if (kernels::cpu::AmxTilesUsable()) peaks.amx_int8_gops_per_core = AmxInt8Gops();
  constexpr size_t kDramBytes = size_t{256} << 20;
  peaks.dram_gbs_one_thread = StreamReadGbs(kDramBytes, 1);
  const int threads = static_cast<int>(std::thread::hardware_concurrency());
  peaks.dram_gbs_all_threads = StreamReadGbs(kDramBytes, threads > 0 ? threads : 1);
  return peaks;
}

}  // namespace pagoda::bench
