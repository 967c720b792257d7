#include "pagoda/quantize/type_mix.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <cstdio>
#include <string_view>

namespace pagoda::quantize {
namespace {

enum class Role { kOutput, kTokenEmbedding, kAttentionQkv, kAttentionKvB, kAttentionV, kAttentionK, kAttentionQ,
                  kAttentionOutput, kFfnUp, kFfnGate, kFfnDown, kOther };

bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// In llama.cpp's order: the first match wins.
Role RoleOf(std::string_view name) {
  if (name == "output.weight") return Role::kOutput;
  if (name == "token_embd.weight" || name == "per_layer_token_embd.weight") return Role::kTokenEmbedding;
  if (Contains(name, "attn_qkv.weight")) return Role::kAttentionQkv;
  if (Contains(name, "attn_kv_b.weight")) return Role::kAttentionKvB;
  if (Contains(name, "attn_v.weight")) return Role::kAttentionV;
  if (Contains(name, "attn_k.weight")) return Role::kAttentionK;
  if (Contains(name, "attn_q.weight")) return Role::kAttentionQ;
  if (Contains(name, "attn_output.weight")) return Role::kAttentionOutput;
  if (Contains(name, "ffn_up")) return Role::kFfnUp;
  if (Contains(name, "ffn_gate")) return Role::kFfnGate;
  if (Contains(name, "ffn_down")) return Role::kFfnDown;
  return Role::kOther;
}

// The fused QKV and MLA's kv_b projection carry V, so they follow its rules.
bool CarriesV(Role r) { return r == Role::kAttentionV || r == Role::kAttentionQkv || r == Role::kAttentionKvB; }

// The first and last eighth of the layers and every third one between.
bool UseMoreBits(int64_t layer, int64_t layers) {
  return layer < layers / 8 || layer >= 7 * layers / 8 || (layer - layers / 8) % 3 == 2;
}

bool IsQuantized(DType t) { return DTypeBlockElems(t) > 1; }

// A row length the type cannot hold falls back to a 32-element type, then to F16.
DType Fallback(const gguf::TensorInfo& tensor, DType type) {
  const int64_t cols = tensor.shape[0];
  if (cols % DTypeBlockElems(type) == 0) return type;
  DType fallback = DType::kF16;
  switch (type) {
    case DType::kIQ4_XS: fallback = DType::kIQ4_NL; break;
    case DType::kQ2_K:
    case DType::kQ3_K: fallback = DType::kQ4_0; break;
    case DType::kQ4_K: fallback = DType::kQ5_0; break;
    case DType::kQ5_K: fallback = DType::kQ5_1; break;
    case DType::kQ6_K: fallback = DType::kQ8_0; break;
    default: break;
  }
  return cols % DTypeBlockElems(fallback) == 0 ? fallback : DType::kF16;
}

constexpr std::array<std::string_view, 9> kNeverQuantized = {
    "_norm.weight", "ffn_gate_inp.weight", "ffn_gate_tid2eid.weight", "altup", "laurel", "per_layer_model_proj",
    "ssm_conv1d",   "shortconv.conv.weight", "attn_rel_b.weight"};

int LayerNumber(const std::string& name) {
  int layer = -1;
  return std::sscanf(name.c_str(), "blk.%d.", &layer) == 1 ? layer : -1;
}

}  // namespace

std::vector<size_t> QuantizationOrder(const std::vector<gguf::TensorInfo>& tensors) {
  std::vector<size_t> order(tensors.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const int la = LayerNumber(tensors[a].name), lb = LayerNumber(tensors[b].name);
    return la != lb ? la < lb : tensors[a].name < tensors[b].name;
  });
  return order;
}

bool AllowsQuantization(const gguf::TensorInfo& tensor) {
  const std::string_view name = tensor.name;
  // As GGML counts dimensions: Qwen2-MoE's [hidden, 1] shared-expert gate is a vector.
  if (tensor.ggml_shape().size() < 2 || name.size() < 6 || name.substr(name.size() - 6) != "weight") return false;
  if (name == "position_embd.weight" || name == "token_types.weight") return false;
  for (std::string_view part : kNeverQuantized) {
    if (Contains(name, part)) return false;
  }
  return true;
}

TypeMix::TypeMix(FileType file_type, ModelShape model, const std::vector<gguf::TensorInfo>& tensors)
    : file_type_(file_type), model_(std::move(model)) {
  for (const gguf::TensorInfo& t : tensors) {
    const Role role = RoleOf(t.name);
    if (CarriesV(role)) ++num_attention_v_;
    if (role == Role::kOutput) tied_embeddings_ = false;
  }
}

DType TypeMix::Next(const gguf::TensorInfo& tensor) {
  if (!AllowsQuantization(tensor)) return tensor.dtype;
  const DType type = DefaultTensorType(file_type_);
  if (!IsQuantized(type)) return type;
  return Fallback(tensor, Choose(tensor, type));
}

DType TypeMix::Choose(const gguf::TensorInfo& tensor, DType type) {
  const Role role = RoleOf(tensor.name);
  if (role == Role::kOutput || (tied_embeddings_ && role == Role::kTokenEmbedding)) return ForOutput(tensor, type);
  if (role == Role::kTokenEmbedding) return type;
  if (CarriesV(role)) return ForAttentionV(type);
  if (role == Role::kAttentionK) return model_.num_experts == 8 ? DType::kQ8_0 : type;
  if (role == Role::kFfnDown) return ForFfnDown(tensor, type);
  if (role == Role::kAttentionOutput) return ForAttentionOutput(type);
  return type;
}

DType TypeMix::ForOutput(const gguf::TensorInfo& tensor, DType type) const {
  if (model_.architecture == "falcon" || tensor.shape[0] % DTypeBlockElems(type) != 0) return DType::kQ8_0;
  return type == DType::kQ8_0 ? type : DType::kQ6_K;
}

DType TypeMix::ForAttentionV(DType type) {
  const int64_t i = attention_v_seen_++;
  const int64_t gqa = model_.num_kv_heads > 0 ? model_.num_heads / model_.num_kv_heads : 1;
  switch (file_type_) {
    case FileType::kQ2_K: type = gqa >= 4 ? DType::kQ4_K : DType::kQ3_K; break;
    case FileType::kQ3_K_M: type = i < 2 ? DType::kQ5_K : DType::kQ4_K; break;
    case FileType::kQ3_K_L: type = DType::kQ5_K; break;
    case FileType::kQ4_K_M:
    case FileType::kQ5_K_M:
      if (UseMoreBits(i, num_attention_v_)) type = DType::kQ6_K;
      break;
    case FileType::kQ4_K_S:
      if (i < 4) type = DType::kQ5_K;
      break;
    case FileType::kIQ4_NL:
    case FileType::kIQ4_XS:
      if (gqa >= 4) type = DType::kQ5_K;
      break;
    default: break;
  }
  // llama.cpp's 70B class (80 layers with grouped KV heads): V is 8x smaller
  // than Q there, so more bits cost little.
  const bool is_70b = model_.num_layers == 80 && model_.num_heads != model_.num_kv_heads;
  if (is_70b && (type == DType::kQ3_K || type == DType::kQ4_K)) type = DType::kQ5_K;
  if (model_.num_experts == 8) type = DType::kQ8_0;
  return type;
}

// Experts' tensors of one layer need not be adjacent, so with experts the
// layer comes from the name.
int64_t TypeMix::LayerOf(const gguf::TensorInfo& tensor, int64_t counter) const {
  if (model_.num_experts <= 1) return counter;
  const int layer = LayerNumber(tensor.name);
  return layer >= 0 ? layer : counter;
}

DType TypeMix::ForFfnDown(const gguf::TensorInfo& tensor, DType type) {
  const int64_t i = LayerOf(tensor, ffn_down_seen_++);
  const int64_t n = model_.num_layers;
  const bool falcon = model_.architecture == "falcon";
  switch (file_type_) {
    case FileType::kQ2_K: return DType::kQ3_K;
    case FileType::kQ3_K_M:
      if (i < n / 16) return DType::kQ5_K;
      return !falcon || UseMoreBits(i, n) ? DType::kQ4_K : DType::kQ3_K;
    case FileType::kQ3_K_L: return falcon ? DType::kQ4_K : DType::kQ5_K;
    case FileType::kQ4_K_M:
      if (falcon) return i < n / 16 ? DType::kQ6_K : UseMoreBits(i, n) ? DType::kQ5_K : DType::kQ4_K;
      return UseMoreBits(i, n) ? DType::kQ6_K : type;
    case FileType::kQ5_K_M: return UseMoreBits(i, n) ? DType::kQ6_K : type;
    case FileType::kQ4_K_S: return !falcon && i < n / 8 ? DType::kQ5_K : type;
    case FileType::kIQ4_NL:
    case FileType::kIQ4_XS: return i < n / 8 ? DType::kQ5_K : type;
    default: return type;
  }
}

DType TypeMix::ForAttentionOutput(DType type) const {
  if (model_.architecture == "falcon") return file_type_ == FileType::kQ3_K_L ? DType::kQ4_K : type;
  if (model_.num_experts == 8) {
    switch (file_type_) {
      case FileType::kQ2_K:
      case FileType::kQ3_K_M:
      case FileType::kQ4_K_S:
      case FileType::kQ4_K_M:
      case FileType::kIQ4_NL:
      case FileType::kIQ4_XS: return DType::kQ5_K;
      default: return type;
    }
  }
  switch (file_type_) {
    case FileType::kQ2_K: return DType::kQ3_K;
    case FileType::kQ3_K_M: return DType::kQ4_K;
    case FileType::kQ3_K_L: return DType::kQ5_K;
    default: return type;
  }
}

}  // namespace pagoda::quantize
