// Which type each tensor of a model gets in a file type such as Q4_K_M:
// llama-quantize's rules without an importance matrix, so that a file
// Pagoda writes has the same tensor types as llama.cpp's.
//
// The rules give more bits where errors hurt most: the output projection
// (and a tied token embedding) at Q6_K; attn_v and ffn_down of the first
// and last eighth of the layers and every third layer between at Q6_K in
// the _M mixes; attn_v at Q5_K in IQ4_NL/IQ4_XS when four or more query
// heads share a KV head, and ffn_down of their first eighth of the layers;
// a fallback to a 32-element type for rows that are not a multiple of 256
// (Q4_K -> Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0, Q2_K/Q3_K -> Q4_0,
// IQ4_XS -> IQ4_NL).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pagoda/formats/gguf/tensor_info.h"
#include "pagoda/quantize/file_type.h"

namespace pagoda::quantize {

// What the rules need to know of the model, from its GGUF metadata.
struct ModelShape {
  std::string architecture;
  int64_t num_layers = 0;
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;
  int64_t num_experts = 0;
};

// The order in which llama-quantize visits (and writes) a table's tensors:
// by layer (blk.N; the others first), then by name. The layer-dependent
// rules count tensors in this order, so it decides which get more bits.
std::vector<size_t> QuantizationOrder(const std::vector<gguf::TensorInfo>& tensors);

class TypeMix {
 public:
  // `tensors` is the whole table: the counts of attn_v tensors and whether
  // there is an output.weight come from it.
  TypeMix(FileType file_type, ModelShape model, const std::vector<gguf::TensorInfo>& tensors);

  // The type of the next tensor; call once per tensor, in QuantizationOrder
  // (the layer-dependent rules count the tensors seen).
  DType Next(const gguf::TensorInfo& tensor);

 private:
  DType Choose(const gguf::TensorInfo& tensor, DType type);
  DType ForOutput(const gguf::TensorInfo& tensor, DType type) const;
  DType ForAttentionV(DType type);
  DType ForFfnDown(const gguf::TensorInfo& tensor, DType type);
  DType ForAttentionOutput(DType type) const;
  int64_t LayerOf(const gguf::TensorInfo& tensor, int64_t counter) const;

  FileType file_type_;
  ModelShape model_;
  bool tied_embeddings_ = true;
  int64_t num_attention_v_ = 0;
  int64_t attention_v_seen_ = 0;
  int64_t ffn_down_seen_ = 0;
};

// Whether llama-quantize would quantize this tensor at all: 2-D and 3-D
// weights except norms, expert routers and a few small special tensors.
bool AllowsQuantization(const gguf::TensorInfo& tensor);

}  // namespace pagoda::quantize
