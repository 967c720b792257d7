#include "pagoda/model/model.h"

#include "pagoda/formats/gguf/gguf_file.h"
#include "pagoda/model/architectures/architectures.h"

namespace pagoda {

StatusOr<std::unique_ptr<Model>> LoadModel(std::shared_ptr<const gguf::GgufFile> file) {
  PAGODA_ASSIGN_OR_RETURN(ModelConfig config, ModelConfigFromGguf(*file));
  // ModelConfigFromGguf refuses architectures that have no implementation.
  const Architecture* arch = FindArchitecture(config.architecture);
  return arch->load(std::move(file), std::move(config));
}

}  // namespace pagoda
