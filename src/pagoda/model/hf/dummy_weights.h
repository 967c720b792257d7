// vLLM's --load-format dummy: a Hugging Face config's tensors with random
// values in place of a checkpoint's, so that a model of any size can be
// run (benchmarked, or checked across backends) from its config.json alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pagoda/base/status.h"
#include "pagoda/formats/safetensors/safetensors_tensor.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda::hf {

// One tensor of the checkpoint the config describes: its Hugging Face name
// and shape (outermost first).
struct DummyTensorShape {
  std::string name;
  std::vector<int64_t> shape;
};

// The tensors of a dense decoder of the Llama family (LlamaForCausalLM,
// MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM) as config.json
// sizes them: embeddings, per layer the norms, Q/K/V/O (with Qwen2's or
// attention_bias's biases, Qwen3's Q/K norms) and the gated MLP, the final
// norm, and lm_head unless tie_word_embeddings. Other architectures are
// refused, naming them.
StatusOr<std::vector<DummyTensorShape>> DummyTensorShapes(const nlohmann::json& config);

// Random values for `t` in dtype (F32, F16 or BF16), the same for the same
// name and shape on every machine: matrices uniform in +-1/sqrt(columns),
// so that activations keep their scale through the layers; norm weights 1;
// biases 0. `bytes` holds them; the returned tensor views it.
safetensors::SafetensorsTensor DummyTensor(const DummyTensorShape& t, DType dtype, std::vector<uint8_t>& bytes);

}  // namespace pagoda::hf
