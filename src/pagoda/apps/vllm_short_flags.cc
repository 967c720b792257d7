#include "pagoda/apps/vllm_short_flags.h"

#include <string_view>

namespace pagoda::apps {
namespace {

struct ShortFlag {
  std::string_view short_name;
  std::string_view long_name;
};

constexpr ShortFlag kShortFlags[] = {
    {"-tp", "--tensor-parallel-size"},
    {"-pp", "--pipeline-parallel-size"},
};

}  // namespace

std::vector<std::string> ExpandVllmShortFlags(int argc, const char* const* argv) {
  std::vector<std::string> args;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    for (const ShortFlag& f : kShortFlags) {
      if (arg == f.short_name || (arg.starts_with(f.short_name) && arg[f.short_name.size()] == '=')) {
        arg = std::string(f.long_name) + arg.substr(f.short_name.size());
        break;
      }
    }
    args.push_back(std::move(arg));
  }
  return args;
}

}  // namespace pagoda::apps
