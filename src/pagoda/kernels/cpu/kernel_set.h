// The implementations of cpu_kernels.h available in this build, one set per
// instruction set. An engine runs the best set the CPU supports (its
// ComputeContext carries it); tests and benchmarks can run every supported set.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "pagoda/kernels/cpu_kernels.h"
#include "pagoda/kernels/cpu/row_ops.h"
#include "pagoda/kernels/cpu/simd_matmul.h"

namespace pagoda::kernels::cpu {

struct KernelSet {
  const char* name;     // "scalar", "avx2", "avx512", "avx512bf16", "amx"
  const char* summary;  // what it runs on, for the start-up log
  void (*matmul)(const float* x, int64_t m, const MatrixView& w, float* y, ComputeContext& ctx);
  void (*embedding_lookup)(const MatrixView& table, const int32_t* ids, int64_t n, float* out);
  void (*rms_norm)(const float* x, const float* weight, int64_t rows, int64_t dim, float eps, float* y);
  // RoPE's rotation by angles from reference::RopeAngles (kernels::Rope
  // computes them once per step and position).
  void (*rope)(float* x, const float* cos_sin, int64_t tokens, int64_t heads, int64_t head_dim, RopeStyle style);
  void (*silu_mul)(const float* gate, const float* up, int64_t n, float* out);
  void (*gelu_mul)(const float* gate, const float* up, int64_t n, float* out);
  void (*add_in_place)(float* y, const float* x, int64_t n);
  void (*add_bias)(float* y, const float* bias, int64_t rows, int64_t cols);
  void (*scale)(float* x, int64_t n, float s);
  void (*softcap)(float* x, int64_t n, float cap);
  void (*write_kv)(const float* k, const float* v, const int64_t* slot_mapping, int64_t tokens,
                   const KvCacheLayer& cache);
  void (*paged_attention)(const float* q, int64_t num_heads, const KvCacheLayer& cache,
                          const AttentionBatch& batch, const AttentionParams& params, float* out,
                          ComputeContext& ctx);
  void (*moe_route)(const float* logits, int64_t tokens, int64_t num_experts, int64_t k, bool normalize,
                    int32_t* expert_ids, float* weights);
  const RowOps* rows;  // the sampler's row reductions
  // Reads a BF16 KV cache (kv_pairs_layout.h) with attention of its own
  // (the amx set's tiles); the other sets read one through the reference's
  // row kernel.
  bool own_bf16_kv_attention = false;
  // The SIMD MatMul pieces, for tests; null for the scalar set.
  const SimdMatMulOps* simd;
};

// Every set this CPU can run, scalar first, best last.
std::span<const KernelSet* const> SupportedKernelSets();
// The set an engine's ComputeContext runs: the best of them, or the one
// $PAGODA_KERNEL_SET names ("scalar", "avx2", "avx512", "avx512bf16", "amx") if this CPU supports it.
const KernelSet& BestKernelSet();
// The supported set of that name, or null.
const KernelSet* FindSupportedKernelSet(std::string_view name);

}  // namespace pagoda::kernels::cpu
