// Loading what the subcommands share: the default model's location, and a
// GGUF file with its model and tokenizer.
#pragma once

#include <memory>
#include <string>

#include "pagoda/base/status.h"
#include "pagoda/formats/gguf/gguf_file.h"
#include "pagoda/model/model.h"
#include "pagoda/tokenizer/tokenizer.h"

namespace pagoda::apps {

// `path` if given, else $PAGODA_MODEL, else the default model set up by scripts/setup.sh.
std::string ResolveModelPath(const std::string& path);

struct LoadedModel {
  std::shared_ptr<const gguf::GgufFile> file;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  std::unique_ptr<Model> model;  // null when only the tokenizer was asked for
};

StatusOr<LoadedModel> LoadModelFiles(const std::string& path, bool with_weights);

}  // namespace pagoda::apps
