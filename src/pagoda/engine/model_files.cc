#include "pagoda/engine/model_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "pagoda/engine/hf_cache.h"
#include "pagoda/engine/hub_download.h"
#include "pagoda/model/hf/hf_checkpoint.h"
#include "pagoda/tokenizer/gguf_tokenizer_loader.h"
#include "pagoda/tokenizer/hf_tokenizer_loader.h"
#include "pagoda/tokenizer/placeholder_tokenizer.h"

namespace pagoda {

std::string ResolveModelPath(const std::string& path) {
  if (!path.empty()) return path;
  if (const char* env = std::getenv("PAGODA_MODEL"); env != nullptr && *env != '\0') return env;
  return PAGODA_DEFAULT_MODEL;
}

StatusOr<std::string> LocateModel(const std::string& path_or_id, const std::string& revision) {
  std::error_code error;
  if (std::filesystem::exists(path_or_id, error)) {
    if (!revision.empty()) {
      return InvalidArgumentError("--revision " + revision + " applies to a model id from the Hugging Face cache; '" +
                                  path_or_id + "' is a local path");
    }
    return path_or_id;
  }
  if (LooksLikeModelId(path_or_id)) {
    StatusOr<std::string> cached = ResolveCachedModel(path_or_id, revision);
    if (cached.ok() || cached.status().code() != StatusCode::kNotFound) return cached;
    const char* offline = std::getenv("HF_HUB_OFFLINE");
    if (offline != nullptr && std::string(offline) != "0" && std::string(offline) != "") {
      return NotFoundError(cached.status().message() + "; HF_HUB_OFFLINE is set, so it is not downloaded");
    }
    StatusOr<std::string> downloaded = DownloadModel(path_or_id, revision);
    if (downloaded.ok() || downloaded.status().code() != StatusCode::kUnavailable) return downloaded;
    return UnavailableError(cached.status().message() + ", and " + downloaded.status().message() + " (" +
                            HfEndpoint() + ")");
  }
  return NotFoundError("model '" + path_or_id + "' is neither a file, a directory nor a model id (org/name)");
}

namespace {

// vLLM's --load-format values that read a format Pagoda does not.
constexpr std::string_view kOtherLoadFormats[] = {"pt",        "npcache",      "tensorizer",     "sharded_state",
                                                  "bitsandbytes", "mistral",    "runai_streamer", "fastsafetensors"};

Status CheckLoadFormat(const std::string& format, bool hf_directory) {
  if (format == "auto" || (format == "safetensors" && hf_directory) || (format == "gguf" && !hf_directory) ||
      (format == "dummy" && hf_directory)) {
    return Status::Ok();
  }
  if (format == "safetensors" || format == "dummy") {
    return InvalidArgumentError("--load-format " + format + " reads a Hugging Face directory (config.json)");
  }
  if (format == "gguf") return InvalidArgumentError("--load-format gguf reads a GGUF file, not a directory");
  if (std::find(std::begin(kOtherLoadFormats), std::end(kOtherLoadFormats), format) != std::end(kOtherLoadFormats)) {
    return UnimplementedError("--load-format " + format + " is not supported: Pagoda reads auto, safetensors, gguf "
                              "and dummy");
  }
  return InvalidArgumentError("--load-format '" + format + "' is not one of auto, safetensors, gguf, dummy");
}

// The directory's tokenizer, or for random weights without one a
// placeholder of the model's vocabulary.
StatusOr<std::unique_ptr<tokenizer::Tokenizer>> HfTokenizer(const LoadedModel& loaded, bool random_weights) {
  if (random_weights && !std::filesystem::exists(std::filesystem::path(loaded.path) / "tokenizer.json")) {
    // token_embd.weight is [vocab][hidden], GGML's shape {hidden, vocab}.
    const gguf::TensorInfo* embeddings = loaded.file->FindTensor("token_embd.weight");
    if (embeddings == nullptr || embeddings->shape.size() != 2) {
      return InternalError("the random weights have no embedding table");
    }
    return tokenizer::PlaceholderTokenizer(embeddings->shape[1]);
  }
  return tokenizer::LoadTokenizerFromHf(loaded.path);
}

Status OpenHf(LoadedModel& loaded, const ModelLoadOptions& options) {
  PAGODA_ASSIGN_OR_RETURN(const hf::WeightDtype dtype, hf::ParseWeightDtype(options.dtype));
  const bool random_weights = options.load_format == "dummy";
  PAGODA_ASSIGN_OR_RETURN(hf::HfCheckpoint checkpoint,
                          hf::OpenHfCheckpoint(loaded.path, {.dtype = dtype,
                                                             .quantization = options.quantization,
                                                             .random_weights = random_weights}));
  loaded.file = std::move(checkpoint.file);
  loaded.description = "Hugging Face checkpoint: " + checkpoint.description;
  PAGODA_ASSIGN_OR_RETURN(loaded.tokenizer, HfTokenizer(loaded, random_weights));
  PAGODA_ASSIGN_OR_RETURN(loaded.chat_template, tokenizer::ChatTemplateFromHf(loaded.path));
  PAGODA_ASSIGN_OR_RETURN(loaded.generation_config, hf::ReadGenerationConfig(loaded.path));
  return Status::Ok();
}

Status OpenGguf(LoadedModel& loaded, const ModelLoadOptions& options) {
  if (!options.quantization.empty() && options.quantization != "gguf") {
    return InvalidArgumentError("--quantization " + options.quantization + ": a GGUF file's quantization is gguf");
  }
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

// --tokenizer: another checkpoint's tokenizer and chat template.
Status ReplaceTokenizer(LoadedModel& loaded, const std::string& path) {
  if (hf::IsHfDirectory(path) || std::filesystem::exists(std::filesystem::path(path) / "tokenizer.json")) {
    PAGODA_ASSIGN_OR_RETURN(loaded.tokenizer, tokenizer::LoadTokenizerFromHf(path));
    PAGODA_ASSIGN_OR_RETURN(loaded.chat_template, tokenizer::ChatTemplateFromHf(path));
    return Status::Ok();
  }
  PAGODA_ASSIGN_OR_RETURN(auto file, gguf::GgufFile::Open(path));
  PAGODA_ASSIGN_OR_RETURN(loaded.tokenizer, tokenizer::LoadTokenizerFromGguf(*file));
  loaded.chat_template.reset();
  if (auto chat_template = file->GetString("tokenizer.chat_template"); chat_template.ok()) {
    loaded.chat_template = std::move(*chat_template);
  }
  return Status::Ok();
}

}  // namespace

StatusOr<LoadedModel> LoadModelFiles(const std::string& path, bool with_weights, const ModelLoadOptions& options) {
  LoadedModel loaded;
  PAGODA_ASSIGN_OR_RETURN(loaded.path, LocateModel(ResolveModelPath(path), options.revision));
  const bool hf_directory = hf::IsHfDirectory(loaded.path);
  PAGODA_RETURN_IF_ERROR(CheckLoadFormat(options.load_format, hf_directory));
  PAGODA_RETURN_IF_ERROR(hf_directory ? OpenHf(loaded, options) : OpenGguf(loaded, options));
  if (!options.tokenizer.empty()) PAGODA_RETURN_IF_ERROR(ReplaceTokenizer(loaded, options.tokenizer));
  if (with_weights) {
    PAGODA_ASSIGN_OR_RETURN(loaded.model, LoadModel(loaded.file));
    // Vocabularies may be padded past the tokenizer's, never short of it:
    // every id the tokenizer writes must have an embedding row.
    const int64_t vocab = loaded.model->config().vocab_size;
    if (loaded.tokenizer->vocab_size() > vocab) {
      return InvalidArgumentError(fmt::format("the tokenizer{} has {} tokens, more than the model's {} embeddings",
                                              options.tokenizer.empty() ? "" : " (--tokenizer " + options.tokenizer + ")",
                                              loaded.tokenizer->vocab_size(), vocab));
    }
  }
  return loaded;
}

}  // namespace pagoda
