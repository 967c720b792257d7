// Kernel benchmarks at SmolLM2-135M's shapes: the scalar reference
// (single-threaded), then every kernel set this CPU supports at 1 and 2
// threads. "scalar" is the reference arithmetic split over the pool.
//
//   MatMul Q4_1 [576 -> 1536] for m = 1, 16, 128, 512 (an FFN up projection)
//   MatMul Q8_0 [576 -> 49152], m = 1 (the output head in decode)
//   MatMul of every other block type beside Q4_1, every SIMD set, m = 1 and 128:
//     the 32-element types at [576 -> 1536] (where Q4_K_M puts Q5_0), the
//     super-block types at [1536 -> 576] (ffn_down, the one projection of
//     this model whose rows hold a whole number of 256-element blocks);
//     m = 1 also "cold", with the weights read from memory as in decode
//   Where a set repacks a type at load (packed_weights.h), each of those runs
//     also "packed": the copy the engine reads
//   A layer's Q, K and V (Q4_1) as three MatMul calls and as one MatMuls call
//   PagedAttention decode, 512 and 4096 positions, 9 heads over 3 KV heads of 64,
//   a prompt's last 512 rows at 4096 positions, and a decode step of 32
//   sequences of 144 positions scattered over a large arena
//
// Each rate is also reported as a share of this machine's measured peaks
// (machine_peaks.h): "%peak" of the int8 VNNI peak (quantized weights) or
// the f32 FMA peak (float weights, attention) times the threads, "%DRAM" of
// the measured read bandwidth for the cold runs and the KV stream.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pagoda/kernels/compute_context.h"
#include "pagoda/kernels/packed_weights.h"
#include "pagoda/kernels/cpu/kernel_set.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/quantize/weight_quantizer.h"
#include "pagoda/tensor/half.h"
#include "pagoda/threading/thread_pool.h"
#include "machine_peaks.h"

namespace pagoda::kernels {
namespace {

std::vector<float> Random(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& f : v) f = dist(rng);
  return v;
}

struct Matrix {
  std::vector<uint8_t> bytes;
  MatrixView view;
};

std::shared_ptr<Matrix> MakeMatrix(DType dtype, int64_t rows, int64_t cols) {
  auto m = std::make_shared<Matrix>();
  const int64_t row_bytes = DTypeRowBytes(dtype, cols);
  m->bytes.resize(static_cast<size_t>(rows * row_bytes));
  if (!quantize::CanQuantizeWeights(dtype)) {
    // IQ4_NL and IQ4_XS (no quantizer): random bits, with every block's
    // leading f16 scale d set to a finite value; the timing ignores the values.
    std::mt19937 rng(7);
    for (uint8_t& byte : m->bytes) byte = static_cast<uint8_t>(rng());
    const f16_bits d = F32ToF16(0.01f);
    for (size_t off = 0; off < m->bytes.size(); off += static_cast<size_t>(DTypeBlockBytes(dtype))) {
      std::memcpy(m->bytes.data() + off, &d, sizeof(d));
    }
    m->view = {dtype, m->bytes.data(), rows, cols};
    return m;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const std::vector<float> values = Random(cols, static_cast<uint32_t>(r));
    quantize::QuantizeWeightRows(dtype, values.data(), 1, cols, m->bytes.data() + r * row_bytes);
  }
  m->view = {dtype, m->bytes.data(), rows, cols};
  return m;
}

bench::MachinePeaks g_peaks;

// counters[name] = 100 * (units per iteration) / (peak units per second),
// as a rate: the percentage of the peak the run sustained.
void SetShareOfPeak(benchmark::State& state, const char* name, double units_per_iteration, double peak_per_second) {
  if (peak_per_second <= 0) return;
  state.counters[name] = benchmark::Counter(100.0 * units_per_iteration / peak_per_second,
                                            benchmark::Counter::kIsIterationInvariantRate);
}

double DramPeak(int threads) {
  return (threads > 1 ? g_peaks.dram_gbs_all_threads : g_peaks.dram_gbs_one_thread) * 1e9;
}

void SetFlops(benchmark::State& state, double flops_per_iteration) {
  state.counters["GFLOP/s"] = benchmark::Counter(flops_per_iteration * 1e-9 * static_cast<double>(state.iterations()),
                                                 benchmark::Counter::kIsRate);
}

// set == nullptr runs the single-threaded reference. `cold` cycles through
// copies of w that together exceed the last-level cache, so that every call
// reads its weights from memory, as a decode step of a real model does.
// `packed` runs the weights repacked for the set (packed_weights.h), as the
// engine does; without it the set reads the GGUF rows in place.
void RegisterMatMul(const std::string& name, std::shared_ptr<const Matrix> w, int64_t m,
                    const cpu::KernelSet* set, int threads, bool cold = false, bool packed = false) {
  const std::string full = name + "/" + (set ? set->name : "reference") + "/m:" + std::to_string(m) +
                           (set ? "/threads:" + std::to_string(threads) : "") + (cold ? "/cold" : "") +
                           (packed ? "/packed" : "");
  benchmark::RegisterBenchmark(full.c_str(), [=](benchmark::State& state) {
    const int64_t rows = w->view.rows;
    const int64_t cols = w->view.cols;
    const std::vector<float> x = Random(m * cols, 1);
    std::vector<float> y(static_cast<size_t>(m * rows));
    ThreadPool pool(threads);
    ComputeContext ctx(set ? *set : cpu::BestKernelSet(), pool);
    MatrixView base = w->view;
    PackedWeights packed_weights;
    if (packed) {
      MatrixView* views[] = {&base};
      packed_weights = PackedWeights::Pack(ctx, views);
    }
    // The bytes each call reads: the packed copy's, or the rows'.
    const size_t bytes = packed ? static_cast<size_t>(packed_weights.bytes()) : w->bytes.size();
    const void* source = packed ? base.panels : base.data;
    constexpr size_t kColdBytes = size_t{256} << 20;
    const size_t copies = cold ? (kColdBytes + bytes - 1) / bytes : 0;
    // 64-byte aligned, as the packed planes must be.
    std::unique_ptr<uint8_t, decltype(&std::free)> cold_bytes(
        static_cast<uint8_t*>(std::aligned_alloc(64, std::max<size_t>(copies * bytes, 64))), &std::free);
    for (size_t c = 0; c < copies; ++c) std::memcpy(cold_bytes.get() + c * bytes, source, bytes);
    size_t next = 0;
    for (auto _ : state) {
      MatrixView view = base;
      if (cold) {
        (packed ? view.panels : view.data) = cold_bytes.get() + next * bytes;
        next = (next + 1) % copies;
      }
      if (set) {
        set->matmul(x.data(), m, view, y.data(), ctx);
      } else {
        reference::MatMul(x.data(), m, view, y.data());
      }
      benchmark::DoNotOptimize(y.data());
    }
    const double ops = 2.0 * static_cast<double>(m * rows * cols);
    SetFlops(state, ops);
    if (set) {
      // Block-quantized weights multiply int8-quantized activations.
      const bool int8 = DTypeBlockElems(w->view.dtype) > 1 && g_peaks.int8_gops_per_core > 0;
      SetShareOfPeak(state, "%peak", ops,
                     (int8 ? g_peaks.int8_gops_per_core : g_peaks.f32_gflops_per_core) * 1e9 * threads);
      // The amx set's tiles: also against the tile unit's own peak.
      if (int8 && std::string_view(set->name) == "amx") {
        SetShareOfPeak(state, "%amx_peak", ops, g_peaks.amx_int8_gops_per_core * 1e9 * threads);
      }
      if (cold) SetShareOfPeak(state, "%DRAM", static_cast<double>(bytes), DramPeak(threads));
    }
  })->UseRealTime()->Unit(benchmark::kMicrosecond);
}

// Whether the set repacks this type at load, so that the packed run is the one the engine makes.
bool Repacks(const cpu::KernelSet* set, DType dtype) {
  if (set == nullptr || set->simd == nullptr || set->simd->packed_bytes == nullptr) return false;
  return set->simd->packed_bytes(MatrixView{dtype, nullptr, 16, 256}) > 0;
}

// The set on the rows in place, and (where it repacks them) on the packed copy.
void RegisterMatMulBothWays(const std::string& name, std::shared_ptr<const Matrix> w, int64_t m,
                            const cpu::KernelSet* set, int threads, bool cold = false) {
  RegisterMatMul(name, w, m, set, threads, cold);
  if (Repacks(set, w->view.dtype)) RegisterMatMul(name, w, m, set, threads, cold, /*packed=*/true);
}

// A layer's Q, K and V projections (Q4_1, 576 -> 576, 192, 192) from one
// input: three MatMul calls ("separate") against one MatMuls call ("shared":
// x quantized once, one pool job).
void RegisterQkv(int64_t m, const cpu::KernelSet* set, int threads, bool shared) {
  const std::string full = std::string("MatMulsQKV_Q4_1/") + (shared ? "shared/" : "separate/") + set->name +
                           "/m:" + std::to_string(m) + "/threads:" + std::to_string(threads);
  benchmark::RegisterBenchmark(full.c_str(), [=](benchmark::State& state) {
    const std::shared_ptr<const Matrix> w[3] = {MakeMatrix(DType::kQ4_1, 576, 576), MakeMatrix(DType::kQ4_1, 192, 576),
                                                MakeMatrix(DType::kQ4_1, 192, 576)};
    const std::vector<float> x = Random(m * 576, 1);
    std::vector<float> y[3];
    MatMulTarget targets[3];
    for (int i = 0; i < 3; ++i) {
      y[i].resize(static_cast<size_t>(m * w[i]->view.rows));
      targets[i] = {&w[i]->view, y[i].data()};
    }
    ThreadPool pool(threads);
    ComputeContext ctx(*set, pool);
    for (auto _ : state) {
      if (shared) {
        MatMuls(ctx, x.data(), m, targets);
      } else {
        for (const MatMulTarget& t : targets) MatMul(ctx, x.data(), m, *t.w, t.y);
      }
      benchmark::DoNotOptimize(y[0].data());
    }
    SetFlops(state, 2.0 * static_cast<double>(m * (576 + 192 + 192) * 576));
  })->UseRealTime()->Unit(benchmark::kMicrosecond);
}

// The MatMuls of a decode step of the default model, one x row each, as the
// engine issues them: per layer Q, K and V from one input (576 -> 576, 192,
// 192), O (576 -> 576), gate and up from one input (576 -> 2 x 1536), down
// (1536 -> 576), all Q4_1, then the Q8_0 output head (576 -> 49152). 96 MB
// packed, so the weights come from the last-level cache, not L2, and each
// call starts on weights the previous one did not touch: this measures what
// short matrices lose to starting their streams, which the single-matrix
// benchmarks above hide.
void RegisterDecodeStack(const cpu::KernelSet* set, int threads) {
  const std::string full = std::string("DecodeMatMulStack/") + set->name + "/threads:" + std::to_string(threads);
  benchmark::RegisterBenchmark(full.c_str(), [=](benchmark::State& state) {
    constexpr int kLayers = 30;
    const std::shared_ptr<const Matrix> shapes[] = {
        MakeMatrix(DType::kQ4_1, 576, 576),  MakeMatrix(DType::kQ4_1, 192, 576),  MakeMatrix(DType::kQ4_1, 192, 576),
        MakeMatrix(DType::kQ4_1, 576, 576),  MakeMatrix(DType::kQ4_1, 1536, 576), MakeMatrix(DType::kQ4_1, 1536, 576),
        MakeMatrix(DType::kQ4_1, 576, 1536), MakeMatrix(DType::kQ8_0, 49152, 576)};
    constexpr size_t kPerLayer = 7;
    // Each layer's own copy of the bytes, then the head.
    std::vector<Matrix> weights(kLayers * kPerLayer + 1);
    for (size_t i = 0; i < weights.size(); ++i) {
      const Matrix& source = *shapes[i < kLayers * kPerLayer ? i % kPerLayer : kPerLayer];
      weights[i].bytes = source.bytes;
      weights[i].view = source.view;
      weights[i].view.data = weights[i].bytes.data();
    }
    ThreadPool pool(threads);
    ComputeContext ctx(*set, pool);
    std::vector<MatrixView*> views;
    for (Matrix& m : weights) views.push_back(&m.view);
    const PackedWeights packed = PackedWeights::Pack(ctx, views);
    const std::vector<float> x = Random(1536, 1);
    std::vector<float> y(49152 + 3 * 1536);
    auto target = [&](size_t i, int64_t offset) { return MatMulTarget{&weights[i].view, y.data() + offset}; };
    double bytes = 0;
    for (const Matrix& m : weights) bytes += static_cast<double>(m.bytes.size());
    // The roofline of a decode step's MatMuls: a plain read of a working
    // set of their size, measured here, beside them, since this VM's
    // bandwidth for it drifts by 20% within minutes.
    const double stream_gbs = bench::StreamReadGbs(static_cast<size_t>(bytes), threads);
    for (auto _ : state) {
      for (size_t l = 0; l < kLayers; ++l) {
        const size_t w = l * kPerLayer;
        const MatMulTarget qkv[] = {target(w, 0), target(w + 1, 576), target(w + 2, 768)};
        MatMuls(ctx, x.data(), 1, qkv);
        MatMul(ctx, x.data(), 1, weights[w + 3].view, y.data());
        const MatMulTarget gate_up[] = {target(w + 4, 0), target(w + 5, 1536)};
        MatMuls(ctx, x.data(), 1, gate_up);
        MatMul(ctx, x.data(), 1, weights[w + 6].view, y.data());
      }
      MatMul(ctx, x.data(), 1, weights.back().view, y.data());
      benchmark::DoNotOptimize(y.data());
    }
    state.counters["GB/s"] = benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["stream_GB/s"] = stream_gbs;
    SetShareOfPeak(state, "%stream", bytes, stream_gbs * 1e9);
  })->UseRealTime()->Unit(benchmark::kMicrosecond);
}

// One step for a single sequence of `context` positions whose last `rows`
// are the step's query rows: a decode step (rows = 1) or the last chunk of a
// prompt (causal, each row seeing the positions up to its own).
void RegisterAttention(DType dtype, int64_t context, int64_t rows, const cpu::KernelSet* set, int threads) {
  const std::string full = std::string(rows == 1 ? "PagedAttentionDecode/" : "PagedAttentionPrefill/") + std::string(DTypeName(dtype)) + "/" +
                           (set ? set->name : "reference") + "/ctx:" + std::to_string(context) +
                           (rows == 1 ? "" : "/rows:" + std::to_string(rows)) +
                           (set ? "/threads:" + std::to_string(threads) : "");
  benchmark::RegisterBenchmark(full.c_str(), [=](benchmark::State& state) {
    const int64_t heads = 9, kv_heads = 3, dim = 64, block = 16;
    const int64_t blocks = (context + block - 1) / block;
    const int64_t width = kv_heads * dim;
    const size_t elem = dtype == DType::kF32 ? 4 : 2;
    std::vector<uint8_t> k(static_cast<size_t>(blocks * block * width) * elem);
    std::vector<uint8_t> v(k.size());
    const KvCacheLayer cache{dtype, k.data(), v.data(), blocks, block, kv_heads, dim};
    // Blocks in reverse order, so reads are not one contiguous stream.
    std::vector<int32_t> table(static_cast<size_t>(blocks));
    std::iota(table.rbegin(), table.rend(), 0);
    std::vector<int64_t> slots(static_cast<size_t>(context));
    for (int64_t p = 0; p < context; ++p) slots[p] = table[p / block] * block + p % block;
    const std::vector<float> kv_values = Random(context * width, 2);
    reference::WriteKv(kv_values.data(), kv_values.data(), slots.data(), context, cache);
    const std::vector<float> q = Random(rows * heads * dim, 3);
    std::vector<float> out(static_cast<size_t>(rows * heads * dim));
    const int32_t qsl[2] = {0, static_cast<int32_t>(rows)};
    const int32_t seq_len = static_cast<int32_t>(context);
    const AttentionBatch batch{1, qsl, &seq_len, table.data(), blocks};
    ThreadPool pool(threads);
    ComputeContext ctx(set ? *set : cpu::BestKernelSet(), pool);
    for (auto _ : state) {
      if (set) {
        set->paged_attention(q.data(), heads, cache, batch, {.scale = 0.125f}, out.data(), ctx);
      } else {
        reference::PagedAttention(q.data(), heads, cache, batch, {.scale = 0.125f}, out.data());
      }
      benchmark::DoNotOptimize(out.data());
    }
    // QK and PV over the positions each row sees.
    const double seen = static_cast<double>(rows) * static_cast<double>(context) -
                        static_cast<double>(rows * (rows - 1)) / 2.0;
    const double flops = 4.0 * static_cast<double>(heads * dim) * seen;
    SetFlops(state, flops);
    // The K and V rows of every position, read once by a grouped kernel.
    const double kv_bytes = static_cast<double>(2 * context * width * elem);
    state.counters["KV_GB/s"] = benchmark::Counter(kv_bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    if (set) {
      SetShareOfPeak(state, "%peak", flops, g_peaks.f32_gflops_per_core * 1e9 * threads);
      SetShareOfPeak(state, "%DRAM", kv_bytes, DramPeak(threads));
    }
  })->UseRealTime()->Unit(benchmark::kMicrosecond);
}

// A batched decode step: `seqs` sequences of `context` positions each, one
// query row each, their blocks scattered over an arena of kCopies times as
// many (as a server's cache holds other sequences). Each iteration takes the
// next of kCopies disjoint sets of block tables, so that, as in a decode
// step, K and V come from memory rather than from the cache the previous
// iteration warmed (about 220 MB of K and V at 32 x 144).
void RegisterBatchedDecode(DType dtype, int64_t seqs, int64_t context, const cpu::KernelSet* set, int threads) {
  const std::string full = "PagedAttentionDecodeBatch/" + std::string(DTypeName(dtype)) + "/" + set->name + "/seqs:" +
                           std::to_string(seqs) + "/ctx:" + std::to_string(context) +
                           "/threads:" + std::to_string(threads);
  benchmark::RegisterBenchmark(full.c_str(), [=](benchmark::State& state) {
    constexpr int64_t kCopies = 64;
    const int64_t heads = 9, kv_heads = 3, dim = 64, block = 16;
    const int64_t per_seq = (context + block - 1) / block;
    const int64_t arena_blocks = kCopies * seqs * per_seq;
    const int64_t width = kv_heads * dim;
    // Every element near 1.0 (f16 0x3c3c, bf16 0x3f3f).
    const uint8_t fill = dtype == DType::kF16 ? 0x3c : 0x3f;
    std::vector<uint8_t> k(static_cast<size_t>(arena_blocks * block * width) * 2, fill);
    std::vector<uint8_t> v(k.size(), fill);
    const KvCacheLayer cache{dtype, k.data(), v.data(), arena_blocks, block, kv_heads, dim};
    std::vector<int32_t> all(static_cast<size_t>(arena_blocks));
    std::iota(all.begin(), all.end(), 0);
    std::mt19937 rng(5);
    std::shuffle(all.begin(), all.end(), rng);
    std::vector<int32_t> qsl(static_cast<size_t>(seqs + 1));
    std::iota(qsl.begin(), qsl.end(), 0);
    const std::vector<int32_t> seq_lens(static_cast<size_t>(seqs), static_cast<int32_t>(context));
    const std::vector<float> q = Random(seqs * heads * dim, 3);
    std::vector<float> out(static_cast<size_t>(seqs * heads * dim));
    ThreadPool pool(threads);
    ComputeContext ctx(*set, pool);
    int64_t copy = 0;
    for (auto _ : state) {
      // Copy c's tables: blocks [c, c + 1) * seqs * per_seq of the shuffled arena.
      const AttentionBatch batch{static_cast<int32_t>(seqs), qsl.data(), seq_lens.data(),
                                 all.data() + copy * seqs * per_seq, per_seq};
      copy = (copy + 1) % kCopies;
      set->paged_attention(q.data(), heads, cache, batch, {.scale = 0.125f}, out.data(), ctx);
      benchmark::DoNotOptimize(out.data());
    }
    const double flops = 4.0 * static_cast<double>(seqs * heads * dim * context);
    SetFlops(state, flops);
    const double kv_bytes = static_cast<double>(2 * seqs * context * width * 2);
    state.counters["KV_GB/s"] = benchmark::Counter(kv_bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    SetShareOfPeak(state, "%peak", flops, g_peaks.f32_gflops_per_core * 1e9 * threads);
    SetShareOfPeak(state, "%DRAM", kv_bytes, DramPeak(threads));
  })->UseRealTime()->Unit(benchmark::kMicrosecond);
}

// Every SIMD set, so that the AVX2 set (the one AVX2-only machines run) is
// measured on AVX-512 machines too.
void RegisterBlockTypes(std::span<const cpu::KernelSet* const> sets) {
  const std::pair<DType, std::pair<int64_t, int64_t>> shapes[] = {
      {DType::kQ4_1, {1536, 576}}, {DType::kQ5_0, {1536, 576}}, {DType::kQ5_1, {1536, 576}},
      {DType::kQ8_0, {1536, 576}}, {DType::kIQ4_NL, {1536, 576}}, {DType::kQ4_1, {576, 1536}},
      {DType::kQ2_K, {576, 1536}}, {DType::kQ3_K, {576, 1536}}, {DType::kQ4_K, {576, 1536}},
      {DType::kQ5_K, {576, 1536}}, {DType::kQ6_K, {576, 1536}}, {DType::kIQ4_XS, {576, 1536}}};
  for (const auto& [dtype, shape] : shapes) {
    const auto [rows, cols] = shape;
    const std::shared_ptr<const Matrix> w = MakeMatrix(dtype, rows, cols);
    const std::string name =
        "MatMul" + std::string(DTypeName(dtype)) + "_" + std::to_string(cols) + "x" + std::to_string(rows);
    for (const cpu::KernelSet* set : sets) {
      if (set->simd == nullptr) continue;
      for (int64_t m : {1, 128}) {
        for (int threads : {1, 2}) RegisterMatMulBothWays(name, w, m, set, threads);
      }
      for (int threads : {1, 2}) RegisterMatMulBothWays(name, w, 1, set, threads, /*cold=*/true);
    }
  }
}

void RegisterAll() {
  const auto sets = cpu::SupportedKernelSets();
  const std::shared_ptr<const Matrix> up = MakeMatrix(DType::kQ4_1, 1536, 576);
  for (int64_t m : {1, 16, 128, 512}) {
    RegisterMatMul("MatMulQ4_1_576x1536", up, m, nullptr, 1);
    for (const cpu::KernelSet* set : sets) {
      for (int threads : {1, 2}) RegisterMatMulBothWays("MatMulQ4_1_576x1536", up, m, set, threads);
    }
  }
  const std::shared_ptr<const Matrix> head = MakeMatrix(DType::kQ8_0, 49152, 576);
  RegisterMatMul("MatMulQ8_0_576x49152", head, 1, nullptr, 1);
  for (const cpu::KernelSet* set : sets) {
    for (int threads : {1, 2}) RegisterMatMulBothWays("MatMulQ8_0_576x49152", head, 1, set, threads);
  }
  RegisterBlockTypes(sets);
  for (int64_t m : {1, 32}) {
    for (bool shared : {false, true}) RegisterQkv(m, sets.back(), 2, shared);
  }
  for (int threads : {1, 2}) RegisterDecodeStack(sets.back(), threads);
  // A Hugging Face checkpoint's bf16 weights (the default model's MLP shape).
  const std::shared_ptr<const Matrix> bf16 = MakeMatrix(DType::kBF16, 1536, 576);
  for (const cpu::KernelSet* set : sets) {
    for (int64_t m : {1, 128}) RegisterMatMul("MatMulBF16_576x1536", bf16, m, set, 1);
    RegisterMatMul("MatMulBF16_576x1536", bf16, 1, set, 1, /*cold=*/true);
  }
  for (DType dtype : {DType::kF16, DType::kF32}) {
    RegisterAttention(dtype, 512, 1, nullptr, 1);
    for (const cpu::KernelSet* set : sets) {
      for (int threads : {1, 2}) RegisterAttention(dtype, 512, 1, set, threads);
    }
  }
  // A long context: the KV cache streams from memory rather than L2.
  for (const cpu::KernelSet* set : sets) {
    for (int threads : {1, 2}) RegisterAttention(DType::kF16, 4096, 1, set, threads);
  }
  // A server's decode step: 32 sequences of 144 positions.
  for (int threads : {1, 2}) RegisterBatchedDecode(DType::kF16, 32, 144, sets.back(), threads);
  // One sequence's decode step after 4,096 positions, its K and V from
  // memory as in the engine (the warm run above reads them from the cache),
  // on the SIMD sets' attention kernels past position 512.
  for (const cpu::KernelSet* set : sets) {
    if (set->simd == nullptr) continue;
    for (int threads : {1, 2}) RegisterBatchedDecode(DType::kF16, 1, 4096, set, threads);
  }
  // A prompt's last chunk of 512 rows at 4096 positions (a third of a long
  // prompt's work is attention).
  for (const cpu::KernelSet* set : sets) {
    for (int threads : {1, 2}) RegisterAttention(DType::kF16, 4096, 512, set, threads);
  }
  // A BF16 cache, which the amx set reads on tiles straight from the cache
  // (the other sets read it through the reference's rows): the same shapes.
  if (const cpu::KernelSet* amx = cpu::FindSupportedKernelSet("amx")) {
    for (int threads : {1, 2}) {
      // 144 positions: the mean context of a 16 + 256 token decode.
      RegisterAttention(DType::kBF16, 144, 1, amx, threads);
      RegisterAttention(DType::kBF16, 512, 1, amx, threads);
      RegisterAttention(DType::kBF16, 4096, 1, amx, threads);
      RegisterBatchedDecode(DType::kBF16, 32, 144, amx, threads);
      RegisterBatchedDecode(DType::kBF16, 1, 144, amx, threads);
      RegisterBatchedDecode(DType::kBF16, 1, 4096, amx, threads);
      RegisterAttention(DType::kBF16, 4096, 512, amx, threads);
    }
  }
}

}  // namespace
}  // namespace pagoda::kernels

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::printf("best kernel set: %s\n", pagoda::kernels::cpu::BestKernelSet().name);
  pagoda::kernels::g_peaks = pagoda::bench::MeasureMachinePeaks();
  const pagoda::bench::MachinePeaks& p = pagoda::kernels::g_peaks;
  std::printf("measured peaks: f32 FMA %.0f GFLOP/s per core, int8 VNNI %.0f GOP/s per core, "
              "int8 AMX %.0f GOP/s per core, DRAM reads %.1f GB/s (1 thread), %.1f GB/s (all threads)\n",
              p.f32_gflops_per_core, p.int8_gops_per_core, p.amx_int8_gops_per_core, p.dram_gbs_one_thread,
              p.dram_gbs_all_threads);
  pagoda::kernels::RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
