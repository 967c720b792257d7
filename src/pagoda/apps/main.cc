// `pagoda`: the command-line front end. Each subcommand lives in its own file.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>

#include "pagoda/apps/commands.h"

namespace pagoda::apps {

void LogToStderr() {
  spdlog::default_logger()->sinks() = {std::make_shared<spdlog::sinks::stderr_color_sink_mt>()};
}

}  // namespace pagoda::apps

int main(int argc, char** argv) {
  CLI::App app{"Pagoda: LLM inference and serving engine"};
  app.require_subcommand(1);
  pagoda::apps::Command command;
  pagoda::apps::RegisterInspect(app, command);
  pagoda::apps::RegisterTokenize(app, command);
  pagoda::apps::RegisterGenerate(app, command);
  pagoda::apps::RegisterPerplexity(app, command);
  pagoda::apps::RegisterBench(app, command);
  pagoda::apps::RegisterServe(app, command);
  pagoda::apps::RegisterQuantize(app, command);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One clear line instead of CLI11's usage dump.
    std::fprintf(stderr, "pagoda: %s (see --help)\n", e.what());
    return 2;
  }
  const pagoda::Status status = command();
  if (!status.ok()) {
    std::fprintf(stderr, "pagoda: %s\n", status.message().c_str());
    return 1;
  }
  return 0;
}
