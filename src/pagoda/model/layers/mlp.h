// The gated feed-forward block, down(act(gate x) * up x): SwiGLU (Llama,
// Qwen, Phi-3) or GeGLU (Gemma); and its mixture-of-experts form.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "pagoda/base/cache_line_vector.h"
#include "pagoda/kernels/cpu_kernels.h"

namespace pagoda::layers {

enum class Activation { kSilu, kGelu };

struct MlpWeights {
  kernels::MatrixView gate{}, up{}, down{};
};

class GatedMlp {
 public:
  // x [rows][hidden] -> out [rows][hidden]; prepare_x (where set) writes
  // x's rows first (kernels::MatMuls).
  void Run(kernels::ComputeContext& ctx, const MlpWeights& w, Activation act, const kernels::RowStage& prepare_x,
           const float* x, int64_t rows, float* out);
  // Backs the buffers of up to `rows` rows of `ff` (Model::ReserveActivations).
  void Reserve(int64_t rows, int64_t ff);

 private:
  CacheLineVector<float> gate_, up_;
};

struct MoeWeights {
  kernels::MatrixView router{};  // [num_experts][hidden]
  std::vector<MlpWeights> experts;
  int64_t experts_per_token = 0;
  // Renormalize the chosen experts' probabilities to sum to 1 (Qwen3-MoE).
  bool normalize = false;
  // Qwen2-MoE's shared expert, which every token runs, weighted by
  // sigmoid(shared_gate . x); shared_gate is one row.
  struct Shared {
    MlpWeights mlp;
    kernels::MatrixView gate{};
  };
  std::optional<Shared> shared;
};

// Each token runs its top experts_per_token experts (SwiGLU) and sums their
// outputs weighted by the router, in order of the router's preference. A
// token's result does not depend on the other tokens of the batch: experts
// run on gathered rows, and MatMul rows are independent.
class MoeMlp {
 public:
  void Run(kernels::ComputeContext& ctx, const MoeWeights& w, const float* x, int64_t rows, int64_t hidden,
           float* out);

 private:
  GatedMlp mlp_;
  CacheLineVector<float> router_logits_, weights_, gathered_, expert_out_, per_choice_, shared_gate_;
  std::vector<int32_t> chosen_, members_;
};

}  // namespace pagoda::layers
