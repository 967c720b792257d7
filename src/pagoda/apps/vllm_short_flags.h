// vLLM's multi-letter short flags (-tp, -pp), which argparse accepts and
// CLI11 cannot declare: spelled out as their long forms before parsing.
#pragma once

#include <string>
#include <vector>

namespace pagoda::apps {

// argv with "-tp 2" / "-tp=2" as "--tensor-parallel-size 2" / "--tensor-parallel-size=2",
// and -pp likewise; everything else as it is.
std::vector<std::string> ExpandVllmShortFlags(int argc, const char* const* argv);

}  // namespace pagoda::apps
