// `pagoda inspect MODEL.gguf`: the metadata and tensor table of a GGUF file,
// and, for a model Pagoda runs, its KV cache bytes per token.
#include <iostream>

#include "pagoda/apps/commands.h"
#include "pagoda/engine/kv_cache_sizing.h"
#include "pagoda/engine/model_files.h"
#include "pagoda/formats/gguf/gguf_file.h"

namespace pagoda::apps {
namespace {

// One line either way: the bytes at each KV cache dtype, or why the file
// is not a model Pagoda runs (the summary above is still complete).
void PrintKvCacheBytesPerToken(const std::string& path, std::ostream& out) {
  StatusOr<LoadedModel> loaded = LoadModelFiles(path, /*with_weights=*/true);
  if (!loaded.ok()) {
    out << "KV cache bytes per token: unknown (" << loaded.status().message() << ")\n";
    return;
  }
  const ModelConfig& model = loaded->model->config();
  out << "KV cache bytes per token: " << KvCacheBytesPerToken(model, DType::kF16) << " (f16), "
      << KvCacheBytesPerToken(model, DType::kF32) << " (f32)\n";
  out << "KV cache groups: " << DescribeKvCacheGroups(model) << "\n";
}

}  // namespace

void RegisterInspect(CLI::App& app, Command& command) {
  auto* sub = app.add_subcommand("inspect", "Print the metadata and tensor table of a GGUF file");
  auto path = std::make_shared<std::string>();
  sub->add_option("model", *path, "GGUF file (default: the default model)");
  sub->callback([&command, path] {
    command = [path]() -> Status {
      const std::string resolved = ResolveModelPath(*path);
      PAGODA_ASSIGN_OR_RETURN(auto file, gguf::GgufFile::Open(resolved));
      gguf::PrintGgufSummary(*file, std::cout);
      PrintKvCacheBytesPerToken(resolved, std::cout);
      return Status::Ok();
    };
  });
}

}  // namespace pagoda::apps
