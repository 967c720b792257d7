#include "pagoda/engine/model_files.h"

#include <cstdlib>

#include "pagoda/model/hf/hf_checkpoint.h"
#include "pagoda/tokenizer/gguf_tokenizer_loader.h"
#include "pagoda/tokenizer/hf_tokenizer_loader.h"

namespace pagoda {

std::string ResolveModelPath(const std::string& path) {
  if (!path.empty()) return path;
  if (const char* env = std::getenv("PAGODA_MODEL"); env != nullptr && *env != '\0') return env;
  return PAGODA_DEFAULT_MODEL;
}

namespace {

Status OpenHf(LoadedModel& loaded, const ModelLoadOptions& options) {
  PAGODA_ASSIGN_OR_RETURN(const hf::WeightDtype dtype, hf::ParseWeightDtype(options.dtype));
  PAGODA_ASSIGN_OR_RETURN(hf::HfCheckpoint checkpoint, hf::OpenHfCheckpoint(loaded.path, {.dtype = dtype}));
  loaded.file = std::move(checkpoint.file);
  loaded.description = "Hugging Face checkpoint: " + checkpoint.description;
  PAGODA_ASSIGN_OR_RETURN(loaded.tokenizer, tokenizer::LoadTokenizerFromHf(loaded.path));
  PAGODA_ASSIGN_OR_RETURN(loaded.chat_template, tokenizer::ChatTemplateFromHf(loaded.path));
  return Status::Ok();
}

Status OpenGguf(LoadedModel& loaded, const ModelLoadOptions& options) {
  if (options.dtype != "auto") {
    return InvalidArgumentError("--dtype " + options.dtype +
                                " applies to Hugging Face checkpoints; a GGUF file keeps its stored types (use auto)");
  }
  PAGODA_ASSIGN_OR_RETURN(auto file, gguf::GgufFile::Open(loaded.path));
  loaded.file = std::move(file);
  loaded.description = "GGUF file";
  PAGODA_ASSIGN_OR_RETURN(loaded.tokenizer, tokenizer::LoadTokenizerFromGguf(*loaded.file));
  if (auto chat_template = loaded.file->GetString("tokenizer.chat_template"); chat_template.ok()) {
    loaded.chat_template = std::move(*chat_template);
  }
  return Status::Ok();
}

}  // namespace

StatusOr<LoadedModel> LoadModelFiles(const std::string& path, bool with_weights, const ModelLoadOptions& options) {
  LoadedModel loaded;
  loaded.path = ResolveModelPath(path);
  PAGODA_RETURN_IF_ERROR(hf::IsHfDirectory(loaded.path) ? OpenHf(loaded, options) : OpenGguf(loaded, options));
  if (with_weights) {
    PAGODA_ASSIGN_OR_RETURN(loaded.model, LoadModel(loaded.file));
  }
  return loaded;
}

}  // namespace pagoda
