#include "pagoda/model/hf/tensor_names.h"

#include <charconv>
#include <span>

namespace pagoda::hf {
namespace {

struct Rename {
  std::string_view hf;
  std::string_view gguf;
};

// Within "model.layers.N.", for every family.
constexpr Rename kLayerNames[] = {
    {"input_layernorm.weight", "attn_norm.weight"},
    {"self_attn.q_proj.weight", "attn_q.weight"},
    {"self_attn.k_proj.weight", "attn_k.weight"},
    {"self_attn.v_proj.weight", "attn_v.weight"},
    {"self_attn.q_proj.bias", "attn_q.bias"},
    {"self_attn.k_proj.bias", "attn_k.bias"},
    {"self_attn.v_proj.bias", "attn_v.bias"},
    {"self_attn.o_proj.weight", "attn_output.weight"},
    {"self_attn.qkv_proj.weight", "attn_qkv.weight"},
    {"self_attn.q_norm.weight", "attn_q_norm.weight"},
    {"self_attn.k_norm.weight", "attn_k_norm.weight"},
    {"mlp.gate_proj.weight", "ffn_gate.weight"},
    {"mlp.up_proj.weight", "ffn_up.weight"},
    {"mlp.down_proj.weight", "ffn_down.weight"},
    {"mlp.gate_up_proj.weight", "ffn_up.weight"},  // Phi-3: gate rows, then up rows
    {"mlp.gate.weight", "ffn_gate_inp.weight"},
    {"mlp.shared_expert.gate_proj.weight", "ffn_gate_shexp.weight"},
    {"mlp.shared_expert.up_proj.weight", "ffn_up_shexp.weight"},
    {"mlp.shared_expert.down_proj.weight", "ffn_down_shexp.weight"},
    {"mlp.shared_expert_gate.weight", "ffn_gate_inp_shexp.weight"},
    {"block_sparse_moe.gate.weight", "ffn_gate_inp.weight"},
};

// post_attention_layernorm is the MLP's input norm in Llama-style models and
// the attention's output norm in Gemma's sandwich.
constexpr Rename kLlamaLayerNames[] = {
    {"post_attention_layernorm.weight", "ffn_norm.weight"},
};
constexpr Rename kGemmaLayerNames[] = {
    {"post_attention_layernorm.weight", "post_attention_norm.weight"},
    {"pre_feedforward_layernorm.weight", "ffn_norm.weight"},
    {"post_feedforward_layernorm.weight", "post_ffw_norm.weight"},
};

// Within an expert: "mlp.experts.E.<hf>" (Qwen MoE) or
// "block_sparse_moe.experts.E.<hf>" (Mixtral's w1/w3/w2).
constexpr Rename kExpertNames[] = {
    {"gate_proj.weight", "ffn_gate"}, {"up_proj.weight", "ffn_up"}, {"down_proj.weight", "ffn_down"},
    {"w1.weight", "ffn_gate"},        {"w3.weight", "ffn_up"},      {"w2.weight", "ffn_down"},
};

constexpr Rename kTopNames[] = {
    {"model.embed_tokens.weight", "token_embd.weight"},
    {"model.norm.weight", "output_norm.weight"},
    {"lm_head.weight", "output.weight"},
};

std::optional<std::string_view> Find(std::span<const Rename> table, std::string_view hf) {
  for (const Rename& r : table) {
    if (r.hf == hf) return r.gguf;
  }
  return std::nullopt;
}

// Reads "<digits>." off the front of `s`.
std::optional<std::string> TakeIndex(std::string_view& s) {
  const size_t dot = s.find('.');
  if (dot == 0 || dot == std::string_view::npos) return std::nullopt;
  int value = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + dot, value);
  if (error != std::errc() || end != s.data() + dot) return std::nullopt;
  std::string index(s.substr(0, dot));
  s.remove_prefix(dot + 1);
  return index;
}

std::optional<std::string> ExpertName(std::string_view rest, const std::string& block) {
  for (std::string_view prefix : {std::string_view("mlp.experts."), std::string_view("block_sparse_moe.experts.")}) {
    if (!rest.starts_with(prefix)) continue;
    rest.remove_prefix(prefix.size());
    const std::optional<std::string> expert = TakeIndex(rest);
    if (!expert) return std::nullopt;
    const auto gguf = Find(kExpertNames, rest);
    if (!gguf) return std::nullopt;
    return "blk." + block + "." + std::string(*gguf) + "." + *expert + ".weight";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> GgufTensorName(std::string_view hf_name, TensorFamily family) {
  if (const auto top = Find(kTopNames, hf_name)) return std::string(*top);
  constexpr std::string_view kLayers = "model.layers.";
  if (!hf_name.starts_with(kLayers)) return std::nullopt;
  std::string_view rest = hf_name.substr(kLayers.size());
  const std::optional<std::string> block = TakeIndex(rest);
  if (!block) return std::nullopt;
  std::optional<std::string_view> gguf = Find(kLayerNames, rest);
  if (!gguf) gguf = family == TensorFamily::kGemma ? Find(kGemmaLayerNames, rest) : Find(kLlamaLayerNames, rest);
  if (gguf) return "blk." + *block + "." + std::string(*gguf);
  return ExpertName(rest, *block);
}

}  // namespace pagoda::hf
