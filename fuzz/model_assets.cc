#include "model_assets.h"

#include <cstdio>
#include <cstdlib>

#include "pagoda/formats/gguf/gguf_file.h"
#include "pagoda/tokenizer/gguf_tokenizer_loader.h"

namespace pagoda::fuzz {
namespace {

[[noreturn]] void Die(const Status& status) {
  std::fprintf(stderr, "fuzz: cannot load the default model %s: %s\n", PAGODA_DEFAULT_MODEL,
               status.ToString().c_str());
  std::abort();
}

ModelAssets Load() {
  StatusOr<std::unique_ptr<gguf::GgufFile>> file = gguf::GgufFile::Open(PAGODA_DEFAULT_MODEL);
  if (!file.ok()) Die(file.status());
  StatusOr<std::unique_ptr<tokenizer::Tokenizer>> tok = tokenizer::LoadTokenizerFromGguf(**file);
  if (!tok.ok()) Die(tok.status());
  StatusOr<std::string> chat_template = (*file)->GetString("tokenizer.chat_template");
  if (!chat_template.ok()) Die(chat_template.status());
  return {std::move(*tok), std::move(*chat_template)};
}

}  // namespace

const ModelAssets& DefaultModelAssets() {
  static const ModelAssets assets = Load();
  return assets;
}

}  // namespace pagoda::fuzz
