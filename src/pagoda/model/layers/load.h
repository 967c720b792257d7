// Reads the tensors of the shared layers by their GGUF names, checking every
// shape, so an architecture file names only what is particular to it.
#pragma once

#include <cstdint>
#include <string>

#include "pagoda/base/status.h"
#include "pagoda/model/layers/attention.h"
#include "pagoda/model/layers/mlp.h"
#include "pagoda/model/weight_loader.h"

namespace pagoda::layers {

struct AttentionExtras {
  bool qkv_bias = false;  // attn_{q,k,v}.bias
  bool qk_norm = false;   // attn_{q,k}_norm.weight
};

// `prefix` is "blk.N.". Q, K and V come from attn_q/attn_k/attn_v, or are
// rows of one fused attn_qkv (Phi-3) when the file has that instead.
StatusOr<AttentionWeights> LoadAttention(const WeightLoader& w, const std::string& prefix, int64_t hidden,
                                         const AttentionShape& shape, AttentionExtras extras = {});

// ffn_gate/ffn_up/ffn_down, or a fused ffn_up of 2 * ff rows, gate first
// (Phi-3), when the file has no ffn_gate.
StatusOr<MlpWeights> LoadMlp(const WeightLoader& w, const std::string& prefix, int64_t hidden, int64_t ff);

struct MoeShape {
  int64_t num_experts = 0;
  int64_t experts_per_token = 0;
  int64_t expert_ff = 0;
  int64_t shared_ff = 0;  // 0: no shared expert
  bool normalize = false;
};

// ffn_gate_inp (router), ffn_{gate,up,down}_exps, and the shared expert's
// ffn_{gate,up,down}_shexp with ffn_gate_inp_shexp when shape.shared_ff > 0.
StatusOr<MoeWeights> LoadMoe(const WeightLoader& w, const std::string& prefix, int64_t hidden, const MoeShape& shape);

}  // namespace pagoda::layers
