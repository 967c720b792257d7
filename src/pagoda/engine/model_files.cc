#include "pagoda/engine/model_files.h"

#include <cstdlib>

#include "pagoda/tokenizer/gguf_tokenizer_loader.h"

namespace pagoda {

std::string ResolveModelPath(const std::string& path) {
  if (!path.empty()) return path;
  if (const char* env = std::getenv("PAGODA_MODEL"); env != nullptr && *env != '\0') return env;
  return PAGODA_DEFAULT_MODEL;
}

StatusOr<LoadedModel> LoadModelFiles(const std::string& path, bool with_weights) {
  LoadedModel loaded;
  loaded.path = ResolveModelPath(path);
  PAGODA_ASSIGN_OR_RETURN(auto file, gguf::GgufFile::Open(loaded.path));
  loaded.file = std::move(file);
  PAGODA_ASSIGN_OR_RETURN(loaded.tokenizer, tokenizer::LoadTokenizerFromGguf(*loaded.file));
  if (auto chat_template = loaded.file->GetString("tokenizer.chat_template"); chat_template.ok()) {
    loaded.chat_template = std::move(*chat_template);
  }
  if (with_weights) {
    PAGODA_ASSIGN_OR_RETURN(loaded.model, LoadModel(loaded.file));
  }
  return loaded;
}

}  // namespace pagoda
