// What the client measured for one request of a `bench serve` run, with
// vLLM's bench serve definitions (its RequestFuncOutput). Times in seconds.
// Every member has an initializer, so designated initializers may leave any out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pagoda::apps::bench_serve {

struct RequestResult {
  bool success = false;
  double ttft = 0;         // send to the first chunk with a choice
  double latency = 0;      // send to the last chunk with a choice (E2EL)
  std::vector<double> itl = {};  // the gaps between successive chunks with a choice
  int64_t output_tokens = 0;  // the usage chunk's completion_tokens, else the chunks with a choice
  int64_t prompt_len = 0;     // the usage chunk's prompt_tokens, else the dataset's length
  std::string generated_text = {};
  std::string error = {};  // why it failed; empty on success
};

}  // namespace pagoda::apps::bench_serve
