// The one model loader: finds the model (a path, $PAGODA_MODEL, or the
// default model set up by scripts/setup.sh) and opens it with the tokenizer,
// chat template and weights: a GGUF file, or a Hugging Face directory
// (config.json, safetensors, tokenizer.json) seen as a GGUF file
// (model/hf/hf_checkpoint.h). The engine loads through it, and so do the
// commands that need only the tokenizer.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "pagoda/base/status.h"
#include "pagoda/formats/gguf/gguf_file.h"
#include "pagoda/model/hf/generation_config.h"
#include "pagoda/model/model.h"
#include "pagoda/tokenizer/tokenizer.h"

namespace pagoda {

// `path` if given, else $PAGODA_MODEL, else the default model.
std::string ResolveModelPath(const std::string& path);

// Where the model named `path_or_id` lies: an existing file or directory as
// it is (a revision is then an error), else a model id ("org/name") in the
// Hugging Face cache at `revision` (hf_cache.h).
StatusOr<std::string> LocateModel(const std::string& path_or_id, const std::string& revision);

struct ModelLoadOptions {
  // vLLM's --dtype: the weights' type for a Hugging Face checkpoint
  // (hf::ParseWeightDtype). A GGUF file keeps its stored types, so only
  // "auto" is accepted for one.
  std::string dtype = "auto";
  // vLLM's --tokenizer: a Hugging Face directory or GGUF file whose
  // tokenizer and chat template replace the model's; empty: the model's.
  std::string tokenizer;
  // vLLM's --quantization. A GGUF file is "gguf" (the only value it takes);
  // quantized Hugging Face checkpoints are not read yet, so for them every
  // value is refused by name.
  std::string quantization;
  // vLLM's --revision, for a model id: see hf_cache.h.
  std::string revision;
  // vLLM's --load-format: auto (a GGUF file or a Hugging Face directory, by
  // what the path is), safetensors (a Hugging Face directory), gguf (a GGUF
  // file) or dummy (a Hugging Face directory's config.json with random
  // weights, hf/dummy_weights.h; its tokenizer where it has one, else a
  // placeholder of the config's vocabulary, tokenizer/placeholder_tokenizer.h).
  // vLLM's other formats are refused by name.
  std::string load_format = "auto";
};

struct LoadedModel {
  std::string path;  // as resolved
  // The GGUF file, or the GGUF view of a Hugging Face checkpoint.
  std::shared_ptr<const gguf::GgufFile> file;
  // For the start-up log: what was loaded and how ("GGUF file", or the
  // Hugging Face architecture and what was converted at load).
  std::string description;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  std::optional<std::string> chat_template;  // the model's own, when it has one
  hf::GenerationConfig generation_config;    // a Hugging Face checkpoint's; empty for GGUF
  std::unique_ptr<Model> model;              // null when only the tokenizer was asked for
};

StatusOr<LoadedModel> LoadModelFiles(const std::string& path, bool with_weights, const ModelLoadOptions& options = {});

}  // namespace pagoda
