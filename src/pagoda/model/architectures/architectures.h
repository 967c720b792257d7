// The architectures Pagoda implements, one file each, by the name GGUF's
// general.architecture gives them.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/model/model.h"

namespace pagoda {

// Builds the model from a file whose shared hyper-parameters are already in
// `config`; reads the architecture's own keys and tensors.
using ArchitectureLoader = StatusOr<std::unique_ptr<Model>> (*)(std::shared_ptr<const gguf::GgufFile> file,
                                                                 ModelConfig config);

struct Architecture {
  std::string_view name;
  ArchitectureLoader load;
};

// Null for a name Pagoda does not implement.
const Architecture* FindArchitecture(std::string_view name);
// Every implemented name, sorted, for error messages.
std::vector<std::string_view> ArchitectureNames();

StatusOr<std::unique_ptr<Model>> LoadLlama(std::shared_ptr<const gguf::GgufFile> file, ModelConfig config);
StatusOr<std::unique_ptr<Model>> LoadQwen2(std::shared_ptr<const gguf::GgufFile> file, ModelConfig config);
StatusOr<std::unique_ptr<Model>> LoadQwen3(std::shared_ptr<const gguf::GgufFile> file, ModelConfig config);
StatusOr<std::unique_ptr<Model>> LoadGemma2(std::shared_ptr<const gguf::GgufFile> file, ModelConfig config);
StatusOr<std::unique_ptr<Model>> LoadGemma3(std::shared_ptr<const gguf::GgufFile> file, ModelConfig config);
StatusOr<std::unique_ptr<Model>> LoadPhi3(std::shared_ptr<const gguf::GgufFile> file, ModelConfig config);
StatusOr<std::unique_ptr<Model>> LoadQwen2Moe(std::shared_ptr<const gguf::GgufFile> file, ModelConfig config);
StatusOr<std::unique_ptr<Model>> LoadQwen3Moe(std::shared_ptr<const gguf::GgufFile> file, ModelConfig config);

}  // namespace pagoda
