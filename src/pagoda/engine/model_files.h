// The one model loader: finds the model (a path, $PAGODA_MODEL, or the
// default model set up by scripts/setup.sh) and opens its GGUF file with the
// tokenizer, chat template and weights. The engine loads through it, and so
// do the commands that need only the tokenizer.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "pagoda/base/status.h"
#include "pagoda/formats/gguf/gguf_file.h"
#include "pagoda/model/model.h"
#include "pagoda/tokenizer/tokenizer.h"

namespace pagoda {

// `path` if given, else $PAGODA_MODEL, else the default model.
std::string ResolveModelPath(const std::string& path);

struct LoadedModel {
  std::string path;  // as resolved
  std::shared_ptr<const gguf::GgufFile> file;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  std::optional<std::string> chat_template;  // GGUF tokenizer.chat_template, when the file has one
  std::unique_ptr<Model> model;              // null when only the tokenizer was asked for
};

StatusOr<LoadedModel> LoadModelFiles(const std::string& path, bool with_weights);

}  // namespace pagoda
