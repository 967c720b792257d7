#include "pagoda/kernels/cpu/kernel_set.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "pagoda/kernels/cpu/amx/amx_kernels.h"
#include "pagoda/kernels/cpu/amx/tile_permission.h"
#include "pagoda/kernels/cpu/attention_plan.h"
#include "pagoda/kernels/cpu/avx2/avx2_kernels.h"
#include "pagoda/kernels/cpu/avx512/avx512_bf16_kernels.h"
#include "pagoda/kernels/cpu/avx512/avx512_kernels.h"
#include "pagoda/kernels/cpu/grouped_attention.h"
#include "pagoda/kernels/cpu/reference/attend_row.h"
#include "pagoda/kernels/cpu/reference/matmul_rows.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/kernels/compute_context.h"
#include "pagoda/threading/thread_pool.h"

namespace pagoda::kernels::cpu {
namespace {

// The scalar set: reference arithmetic, threaded the same way as the SIMD sets.
void ScalarMatMul(const float* x, int64_t m, const MatrixView& w, float* y, ComputeContext& ctx) {
  if (m <= 0) return;
  const reference::MatMulActivations a = reference::PrepareActivations(x, m, w);
  ctx.pool().ParallelFor(w.rows, [&](int64_t begin, int64_t end) { reference::MatMulRows(a, w, begin, end, y); });
}

void ScalarAttention(const float* q, int64_t num_heads, const KvCacheLayer& cache,
                     const AttentionBatch& batch, const AttentionParams& params, float* out, ComputeContext& ctx) {
  RunPagedAttention(q, num_heads, cache, batch, params, out, reference::AttendRow, &ctx);
}

constexpr SimdMatMulOps kAvx2MatMul = {
    .panel_rows = avx2::kPanelRows,
    .scratch_bytes_per_block = avx2::kScratchBytesPerBlock,
    .quantize = avx2::QuantizeRows,
    .q4_0 = avx2::PanelsQ4_0,
    .q4_1 = avx2::PanelsQ4_1,
    .q8_0 = avx2::PanelsQ8_0,
    .q5_0 = avx2::PanelsQ5_0,
    .q5_1 = avx2::PanelsQ5_1,
    .iq4_nl = avx2::PanelsIQ4_NL,
    .quantize_k = avx2::QuantizeRowsQ8_K,
    .k_scratch_bytes_per_super_block = avx2::kKScratchBytesPerSuperBlock,
    .k = avx2::PanelsK,
    .f32 = avx2::PanelsF32,
    .f16 = avx2::PanelsF16,
    .bf16 = avx2::PanelsBF16,
};
// The AVX-512 set has its own panels for every block type and its own Q8_1
// activation quantizer (bit for bit the AVX2 one); only the Q8_K quantizer
// is the AVX2 one. The 32-element block types add
// each block by FMA (quant_panel_avx512.h), within 1e-5 of the reference's
// sum rather than equal to it; the other panels equal the reference bit for
// bit.
constexpr SimdMatMulOps kAvx512MatMul = {
    .panel_rows = avx512::kPanelRows,
    .scratch_bytes_per_block = avx512::kScratchBytesPerBlock,
    .quantize = avx512::QuantizeRows,
    .q4_0 = avx512::PanelsQ4_0,
    .q4_1 = avx512::PanelsQ4_1,
    .q8_0 = avx512::PanelsQ8_0,
    .q5_0 = avx512::PanelsQ5_0,
    .q5_1 = avx512::PanelsQ5_1,
    .iq4_nl = avx512::PanelsIQ4_NL,
    .quantize_k = avx2::QuantizeRowsQ8_K,
    .k_scratch_bytes_per_super_block = avx512::kKScratchBytesPerSuperBlock,
    .k = avx512::PanelsK,
    .f32 = avx512::PanelsF32,
    .f16 = avx512::PanelsF16,
    .bf16 = avx512::PanelsBF16,
    .packed_bytes = avx512::PanelPlanesBytes,
    .pack = avx512::PackPanelPlanes,
};

// AVX-512 with AVX512-BF16: BF16 weights through VDPBF16PS
// (matmul_bf16_dot_avx512.cc), within 1e-5 of the reference's sum rather
// than equal to it bit for bit; every other type as the AVX-512 set.
constexpr SimdMatMulOps kAvx512Bf16MatMul = [] {
  SimdMatMulOps ops = kAvx512MatMul;
  ops.bf16 = avx512::PanelsBF16Dot;
  return ops;
}();

// AMX-INT8: the quantized types' batches of 16 rows or more on tiles,
// equal bit for bit to the VNNI panels (matmul_quant_amx.cc for the
// 32-element blocks, matmul_k_amx.cc for the super-blocks); float weights
// as the avx512bf16 set.
constexpr SimdMatMulOps kAmxMatMul = [] {
  SimdMatMulOps ops = kAvx512Bf16MatMul;
  ops.scratch_bytes_per_block = amx::kScratchBytesPerBlock;
  ops.q4_0 = amx::PanelsQ4_0;
  ops.q4_1 = amx::PanelsQ4_1;
  ops.q8_0 = amx::PanelsQ8_0;
  ops.q5_0 = amx::PanelsQ5_0;
  ops.q5_1 = amx::PanelsQ5_1;
  ops.iq4_nl = amx::PanelsIQ4_NL;
  ops.k_scratch_bytes_per_super_block = amx::kKScratchBytesPerSuperBlock;
  ops.k = amx::PanelsK;
  return ops;
}();

void Avx2MatMul(const float* x, int64_t m, const MatrixView& w, float* y, ComputeContext& ctx) {
  SimdMatMul(kAvx2MatMul, x, m, w, y, ctx);
}
void Avx512MatMul(const float* x, int64_t m, const MatrixView& w, float* y, ComputeContext& ctx) {
  SimdMatMul(kAvx512MatMul, x, m, w, y, ctx);
}
void Avx512Bf16MatMul(const float* x, int64_t m, const MatrixView& w, float* y, ComputeContext& ctx) {
  SimdMatMul(kAvx512Bf16MatMul, x, m, w, y, ctx);
}
void AmxMatMul(const float* x, int64_t m, const MatrixView& w, float* y, ComputeContext& ctx) {
  SimdMatMul(kAmxMatMul, x, m, w, y, ctx);
}

// A BF16 cache is in the AMX tiles' order (kv_pairs_layout.h), which only
// the amx set reads fast; the other sets read it through the reference's
// row kernel: right, and slow (the engine chooses BF16 for the amx set alone).
void Avx2Attention(const float* q, int64_t num_heads, const KvCacheLayer& cache,
                   const AttentionBatch& batch, const AttentionParams& params, float* out, ComputeContext& ctx) {
  RunPagedAttention(q, num_heads, cache, batch, params, out,
                    cache.dtype == DType::kBF16 ? reference::AttendRow : avx2::AttendRow, &ctx);
}
// AVX-512 attention is grouped by KV head with an online softmax
// (grouped_attention.h); a head wider than its tile buffers takes the AVX2
// row kernel.
constexpr GroupedAttentionKernel kAvx512GroupedAttention = {avx512::AttendSegment, avx512::FoldStep,
                                                                avx512::FoldFinish};
// With AVX512-BF16, the segments past the first kBf16AttentionFrom
// positions run both of attention's products in bf16 (twice the f32 FMA's
// work per instruction). That is where a long prompt's attention work is;
// a single row (decode) gains nothing from it, since converting each K/V
// element to bf16 costs what the products save, so short contexts keep
// f32. docs/performance.md has the speeds and the parity with llama.cpp.
constexpr int64_t kBf16AttentionFrom = 2 * kAttentionSegment;
constexpr GroupedAttentionKernel kAvx512Bf16GroupedAttention = {.attend_segment = avx512::AttendSegment,
                                                                    .fold_step = avx512::FoldStep,
                                                                    .fold_finish = avx512::FoldFinish,
                                                                    .attend_far_segment = avx512::AttendSegmentBf16,
                                                                    .far_from = kBf16AttentionFrom};
// AMX: the segments past the first one (position 256 on) run both products
// on AMX-BF16 tiles (amx/attention_amx.cc), which round as the VDPBF16PS
// kernel does. A prompt's attention there is ~2.8x faster than f32; a
// decode row's is slower (each K/V element is converted to the tiles'
// layout as it is read), so the first segment keeps f32: from position 0,
// `chat` served lost 10%, and from 256 it is unchanged while a 4,000-token
// prompt gains 12% (docs/performance.md).
constexpr GroupedAttentionKernel kAmxGroupedAttention = {.attend_segment = avx512::AttendSegment,
                                                         .fold_step = avx512::FoldStep,
                                                         .fold_finish = avx512::FoldFinish,
                                                         .attend_far_segment = amx::AttendSegmentTiles,
                                                         .far_from = kAttentionSegment,
                                                         .prepared_chunk = amx::kAttentionChunk,
                                                         .prepared_chunk_bytes = amx::PreparedChunkBytes,
                                                         .prepare_chunk = amx::PrepareChunk};
template <const GroupedAttentionKernel& kKernel>
void Avx512Attention(const float* q, int64_t num_heads, const KvCacheLayer& cache,
                     const AttentionBatch& batch, const AttentionParams& params, float* out,
                     ComputeContext& ctx) {
  if (cache.dtype == DType::kBF16 || cache.head_dim > avx512::kMaxAttentionHeadDim) {
    Avx2Attention(q, num_heads, cache, batch, params, out, ctx);
    return;
  }
  RunGroupedPagedAttention(q, num_heads, cache, batch, params, out, kKernel, ctx);
}
// The amx set on a BF16 cache: tiles at every position, reading K and V
// from the cache as they are (amx/attention_pairs_amx.cc).
constexpr GroupedAttentionKernel kAmxPairsAttention = {.attend_segment = amx::AttendSegmentPairs,
                                                       .fold_step = avx512::FoldStep,
                                                       .fold_finish = avx512::FoldFinish};
void AmxAttention(const float* q, int64_t num_heads, const KvCacheLayer& cache, const AttentionBatch& batch,
                  const AttentionParams& params, float* out, ComputeContext& ctx) {
  if (cache.dtype == DType::kBF16 && cache.head_dim <= avx512::kMaxAttentionHeadDim) {
    RunGroupedPagedAttention(q, num_heads, cache, batch, params, out, kAmxPairsAttention, ctx);
    return;
  }
  Avx512Attention<kAmxGroupedAttention>(q, num_heads, cache, batch, params, out, ctx);
}

// The elementwise kernels, norms, RoPE and gathers touch a few thousand
// floats per token, so the sets use the reference versions, except where
// AVX-512 made them measurably faster (WithAvx512Elementwise); MatMul and
// attention have per-ISA code.
// A set: its own MatMul, attention and sampler reductions, and the reference
// row kernels every set shares.
constexpr KernelSet MakeSet(const char* name, const char* summary, decltype(KernelSet::matmul) matmul,
                            decltype(KernelSet::paged_attention) attention, const RowOps* rows,
                            const SimdMatMulOps* simd) {
  KernelSet set{};
  set.name = name;
  set.summary = summary;
  set.matmul = matmul;
  set.embedding_lookup = reference::EmbeddingLookup;
  set.rms_norm = reference::RmsNorm;
  set.rope = reference::RotatePairs;
  set.silu_mul = reference::SiluMul;
  set.gelu_mul = reference::GeluMul;
  set.add_in_place = reference::AddInPlace;
  set.add_bias = reference::AddBias;
  set.scale = reference::Scale;
  set.softcap = reference::Softcap;
  set.write_kv = reference::WriteKv;
  set.paged_attention = attention;
  set.moe_route = reference::MoeRoute;
  set.rows = rows;
  set.simd = simd;
  return set;
}

constexpr KernelSet kScalar =
    MakeSet("scalar", "the scalar reference kernels", ScalarMatMul, ScalarAttention, &reference::kRowOps, nullptr);
constexpr KernelSet kAvx2 =
    MakeSet("avx2", "AVX2 and FMA", Avx2MatMul, Avx2Attention, &avx2::kRowOps, &kAvx2MatMul);
// The AVX-512 sets also have their own SiLU-and-multiply, RoPE, residual
// add and KV write (bit for bit the reference's) and RMSNorm (its double
// sum in lanes).
constexpr KernelSet WithAvx512Elementwise(KernelSet set) {
  set.silu_mul = avx512::SiluMul;
  set.rope = avx512::RotatePairs;
  set.add_in_place = avx512::AddInPlace;
  set.rms_norm = avx512::RmsNorm;
  set.write_kv = avx512::WriteKv;
  return set;
}
constexpr KernelSet kAvx512 = WithAvx512Elementwise(MakeSet("avx512", "AVX-512 with VNNI; BF16 weights widened to f32",
                                                            Avx512MatMul, Avx512Attention<kAvx512GroupedAttention>,
                                                            &avx512::kRowOps,
                                                            &kAvx512MatMul));
constexpr KernelSet kAvx512Bf16 = WithAvx512Elementwise(
    MakeSet("avx512bf16", "AVX-512 with VNNI; BF16 weights and attention through AVX512-BF16's VDPBF16PS",
            Avx512Bf16MatMul, Avx512Attention<kAvx512Bf16GroupedAttention>, &avx512::kRowOps, &kAvx512Bf16MatMul));
constexpr KernelSet WithOwnBf16KvAttention(KernelSet set) {
  set.own_bf16_kv_attention = true;
  return set;
}
constexpr KernelSet kAmx = WithOwnBf16KvAttention(WithAvx512Elementwise(
    MakeSet("amx",
            "AMX-INT8 tiles for quantized prompts and batches, AMX-BF16 tiles for attention (a BF16 KV cache at "
            "every position, an F16 one past position 256); otherwise as avx512bf16",
            AmxMatMul, AmxAttention, &avx512::kRowOps, &kAmxMatMul)));

bool HasAvx2() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("f16c");
}

bool HasAvx512() {
  return HasAvx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
}

std::vector<const KernelSet*> DetectSets() {
  std::vector<const KernelSet*> sets = {&kScalar};
  if (HasAvx2()) sets.push_back(&kAvx2);
  // avx512bf16 is avx512 with BF16 weights through VDPBF16PS: prompts run
  // faster and decode as fast (matmul_bf16_dot_avx512.cc), so it is the
  // best where the CPU has AVX512-BF16.
  if (HasAvx512()) sets.push_back(&kAvx512);
  const bool bf16 = HasAvx512() && __builtin_cpu_supports("avx512bf16");
  if (bf16) sets.push_back(&kAvx512Bf16);
  // AMX asks Linux for the tile permission here, before any thread runs a
  // tile; where it is refused (or the CPU lacks AMX) the set is simply absent.
  if (bf16 && AmxTilesUsable()) sets.push_back(&kAmx);
  return sets;
}

// $PAGODA_KERNEL_SET names a supported set to run instead of the best one,
// so that an AVX-512 machine can run (and measure) the AVX2 set end to end.
const KernelSet* ChooseSet(std::span<const KernelSet* const> sets) {
  const char* name = std::getenv("PAGODA_KERNEL_SET");
  if (name == nullptr || *name == '\0') return sets.back();
  for (const KernelSet* set : sets) {
    if (std::strcmp(set->name, name) == 0) return set;
  }
  std::fprintf(stderr, "PAGODA_KERNEL_SET=%s is not a kernel set this CPU supports; using %s\n", name,
               sets.back()->name);
  return sets.back();
}

}  // namespace

std::span<const KernelSet* const> SupportedKernelSets() {
  static const std::vector<const KernelSet*> sets = DetectSets();
  return sets;
}

const KernelSet* FindSupportedKernelSet(std::string_view name) {
  for (const KernelSet* set : SupportedKernelSets()) {
    if (name == set->name) return set;
  }
  return nullptr;
}

const KernelSet& BestKernelSet() {
  static const KernelSet* const chosen = ChooseSet(SupportedKernelSets());
  return *chosen;
}

}  // namespace pagoda::kernels::cpu
