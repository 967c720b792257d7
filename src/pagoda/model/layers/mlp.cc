#include "pagoda/model/layers/mlp.h"

#include <cmath>
#include <cstring>

#include "pagoda/base/check.h"
#include "pagoda/model/layers/step.h"

namespace pagoda::layers {

void GatedMlp::Reserve(int64_t rows, int64_t ff) {
  ReserveRows(gate_, rows, ff);
  ReserveRows(up_, rows, ff);
}

void GatedMlp::Run(kernels::ComputeContext& ctx, const MlpWeights& w, Activation act,
                   const kernels::RowStage& prepare_x, const float* x, int64_t rows, float* out) {
  const int64_t ff = w.gate.rows;
  float* gate = Rows(gate_, rows, ff);
  float* up = Rows(up_, rows, ff);
  const kernels::MatMulTarget gate_up[] = {{&w.gate, gate}, {&w.up, up}};
  kernels::MatMuls(ctx, x, rows, gate_up, prepare_x);
  // The activation, per row, as the down projection's input.
  auto activate = [&](int64_t begin, int64_t end) {
    float* g = gate + begin * ff;
    const float* u = up + begin * ff;
    if (act == Activation::kSilu) {
      kernels::SiluMul(ctx, g, u, (end - begin) * ff, g);
    } else {
      kernels::GeluMul(ctx, g, u, (end - begin) * ff, g);
    }
  };
  const kernels::MatMulTarget down[] = {{&w.down, out}};
  kernels::MatMuls(ctx, gate, rows, down, activate);
}

void MoeMlp::Run(kernels::ComputeContext& ctx, const MoeWeights& w, const float* x, int64_t rows, int64_t hidden,
                 float* out) {
  const int64_t num_experts = static_cast<int64_t>(w.experts.size());
  const int64_t k = w.experts_per_token;
  PAGODA_CHECK(w.router.rows == num_experts && k > 0 && k <= num_experts);
  float* logits = Rows(router_logits_, rows, num_experts);
  kernels::MatMul(ctx, x, rows, w.router, logits);
  chosen_.resize(static_cast<size_t>(rows * k));
  float* weights = Rows(weights_, rows, k);
  kernels::MoeRoute(ctx, logits, rows, num_experts, k, w.normalize, chosen_.data(), weights);

  // per_choice[t][j]: token t's j-th expert's output. Each expert runs once
  // on the rows that chose it.
  float* per_choice = Rows(per_choice_, rows * k, hidden);
  for (int64_t e = 0; e < num_experts; ++e) {
    members_.clear();
    for (int64_t c = 0; c < rows * k; ++c) {
      if (chosen_[c] == e) members_.push_back(static_cast<int32_t>(c));
    }
    if (members_.empty()) continue;
    const int64_t n = static_cast<int64_t>(members_.size());
    float* gathered = Rows(gathered_, n, hidden);
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(gathered + i * hidden, x + (members_[i] / k) * hidden, hidden * sizeof(float));
    }
    float* expert_out = Rows(expert_out_, n, hidden);
    mlp_.Run(ctx, w.experts[e], Activation::kSilu, nullptr, gathered, n, expert_out);
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(per_choice + members_[i] * hidden, expert_out + i * hidden, hidden * sizeof(float));
    }
  }
  // As GGML: each output scaled by its weight, then summed in choice order.
  for (int64_t t = 0; t < rows; ++t) {
    float* o = out + t * hidden;
    for (int64_t d = 0; d < hidden; ++d) o[d] = per_choice[(t * k) * hidden + d] * weights[t * k];
    for (int64_t j = 1; j < k; ++j) {
      const float* e = per_choice + (t * k + j) * hidden;
      for (int64_t d = 0; d < hidden; ++d) o[d] += e[d] * weights[t * k + j];
    }
  }
  if (!w.shared) return;
  float* shared_out = Rows(expert_out_, rows, hidden);
  mlp_.Run(ctx, w.shared->mlp, Activation::kSilu, nullptr, x, rows, shared_out);
  float* gate = Rows(shared_gate_, rows, 1);
  kernels::MatMul(ctx, x, rows, w.shared->gate, gate);
  for (int64_t t = 0; t < rows; ++t) {
    const float g = 1.0f / (1.0f + std::exp(-gate[t]));
    for (int64_t d = 0; d < hidden; ++d) out[t * hidden + d] += shared_out[t * hidden + d] * g;
  }
}

}  // namespace pagoda::layers
