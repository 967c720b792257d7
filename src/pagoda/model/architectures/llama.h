// The Llama family (SmolLM2, TinyLlama, Llama 2/3): pre-norm decoder with
// RMSNorm, RoPE, grouped-query attention and a SwiGLU MLP.
#pragma once

#include <memory>

#include "pagoda/base/status.h"
#include "pagoda/model/model.h"

namespace pagoda {

StatusOr<std::unique_ptr<Model>> LoadLlama(std::shared_ptr<const gguf::GgufFile> file, ModelConfig config);

}  // namespace pagoda
