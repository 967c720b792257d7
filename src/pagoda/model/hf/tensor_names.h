// Hugging Face tensor names -> GGUF's, as llama.cpp's converter maps them
// ("model.layers.3.self_attn.q_proj.weight" -> "blk.3.attn_q.weight").
// Experts stored one tensor each map to GGUF's per-expert names
// ("blk.N.ffn_gate.E.weight"), which the weight loader reads as a stack.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "pagoda/model/hf/config_translation.h"

namespace pagoda::hf {

// nullopt for a name the family does not use.
std::optional<std::string> GgufTensorName(std::string_view hf_name, TensorFamily family);

}  // namespace pagoda::hf
