#include "pagoda/model/layers/load.h"

namespace pagoda::layers {

StatusOr<AttentionWeights> LoadAttention(const WeightLoader& w, const std::string& prefix, int64_t hidden,
                                         const AttentionShape& shape, AttentionExtras extras) {
  AttentionWeights a;
  const int64_t q_dim = shape.q_dim();
  const int64_t kv_dim = shape.kv_dim();
  if (w.Has(prefix + "attn_qkv.weight")) {
    PAGODA_ASSIGN_OR_RETURN(kernels::MatrixView qkv, w.Matrix(prefix + "attn_qkv.weight", q_dim + 2 * kv_dim, hidden));
    a.q = SliceRows(qkv, 0, q_dim);
    a.k = SliceRows(qkv, q_dim, kv_dim);
    a.v = SliceRows(qkv, q_dim + kv_dim, kv_dim);
  } else {
    PAGODA_ASSIGN_OR_RETURN(a.q, w.Matrix(prefix + "attn_q.weight", q_dim, hidden));
    PAGODA_ASSIGN_OR_RETURN(a.k, w.Matrix(prefix + "attn_k.weight", kv_dim, hidden));
    PAGODA_ASSIGN_OR_RETURN(a.v, w.Matrix(prefix + "attn_v.weight", kv_dim, hidden));
  }
  PAGODA_ASSIGN_OR_RETURN(a.o, w.Matrix(prefix + "attn_output.weight", hidden, q_dim));
  if (extras.qkv_bias) {
    PAGODA_ASSIGN_OR_RETURN(a.q_bias, w.F32Vector(prefix + "attn_q.bias", q_dim));
    PAGODA_ASSIGN_OR_RETURN(a.k_bias, w.F32Vector(prefix + "attn_k.bias", kv_dim));
    PAGODA_ASSIGN_OR_RETURN(a.v_bias, w.F32Vector(prefix + "attn_v.bias", kv_dim));
  }
  if (extras.qk_norm) {
    PAGODA_ASSIGN_OR_RETURN(a.q_norm, w.F32Vector(prefix + "attn_q_norm.weight", shape.head_dim));
    PAGODA_ASSIGN_OR_RETURN(a.k_norm, w.F32Vector(prefix + "attn_k_norm.weight", shape.head_dim));
  }
  return a;
}

StatusOr<MlpWeights> LoadMlp(const WeightLoader& w, const std::string& prefix, int64_t hidden, int64_t ff) {
  MlpWeights m;
  if (w.Has(prefix + "ffn_gate.weight")) {
    PAGODA_ASSIGN_OR_RETURN(m.gate, w.Matrix(prefix + "ffn_gate.weight", ff, hidden));
    PAGODA_ASSIGN_OR_RETURN(m.up, w.Matrix(prefix + "ffn_up.weight", ff, hidden));
  } else {
    PAGODA_ASSIGN_OR_RETURN(kernels::MatrixView gate_up, w.Matrix(prefix + "ffn_up.weight", 2 * ff, hidden));
    m.gate = SliceRows(gate_up, 0, ff);
    m.up = SliceRows(gate_up, ff, ff);
  }
  PAGODA_ASSIGN_OR_RETURN(m.down, w.Matrix(prefix + "ffn_down.weight", hidden, ff));
  return m;
}

StatusOr<MoeWeights> LoadMoe(const WeightLoader& w, const std::string& prefix, int64_t hidden, const MoeShape& shape) {
  MoeWeights m;
  m.experts_per_token = shape.experts_per_token;
  m.normalize = shape.normalize;
  const int64_t n = shape.num_experts;
  PAGODA_ASSIGN_OR_RETURN(m.router, w.Matrix(prefix + "ffn_gate_inp.weight", n, hidden));
  PAGODA_ASSIGN_OR_RETURN(auto gates, w.Experts(prefix + "ffn_gate_exps.weight", n, shape.expert_ff, hidden));
  PAGODA_ASSIGN_OR_RETURN(auto ups, w.Experts(prefix + "ffn_up_exps.weight", n, shape.expert_ff, hidden));
  PAGODA_ASSIGN_OR_RETURN(auto downs, w.Experts(prefix + "ffn_down_exps.weight", n, hidden, shape.expert_ff));
  for (int64_t e = 0; e < n; ++e) m.experts.push_back({gates[e], ups[e], downs[e]});
  if (shape.shared_ff > 0) {
    MoeWeights::Shared s;
    PAGODA_ASSIGN_OR_RETURN(s.mlp.gate, w.Matrix(prefix + "ffn_gate_shexp.weight", shape.shared_ff, hidden));
    PAGODA_ASSIGN_OR_RETURN(s.mlp.up, w.Matrix(prefix + "ffn_up_shexp.weight", shape.shared_ff, hidden));
    PAGODA_ASSIGN_OR_RETURN(s.mlp.down, w.Matrix(prefix + "ffn_down_shexp.weight", hidden, shape.shared_ff));
    // GGUF keeps this one-row gate as a vector.
    PAGODA_ASSIGN_OR_RETURN(const float* gate, w.F32Vector(prefix + "ffn_gate_inp_shexp.weight", hidden));
    s.gate = kernels::MatrixView{DType::kF32, gate, 1, hidden};
    m.shared = s;
  }
  return m;
}

}  // namespace pagoda::layers
