// `pagoda inspect MODEL.gguf`: the metadata and tensor table of a GGUF file.
#include <iostream>

#include "pagoda/apps/commands.h"
#include "pagoda/engine/model_files.h"
#include "pagoda/formats/gguf/gguf_file.h"

namespace pagoda::apps {

void RegisterInspect(CLI::App& app, Command& command) {
  auto* sub = app.add_subcommand("inspect", "Print the metadata and tensor table of a GGUF file");
  auto path = std::make_shared<std::string>();
  sub->add_option("model", *path, "GGUF file (default: the default model)");
  sub->callback([&command, path] {
    command = [path]() -> Status {
      PAGODA_ASSIGN_OR_RETURN(auto file, gguf::GgufFile::Open(ResolveModelPath(*path)));
      gguf::PrintGgufSummary(*file, std::cout);
      return Status::Ok();
    };
  });
}

}  // namespace pagoda::apps
