// What one event of a streamed /v1/completions response says, read as
// vLLM's bench serve reads it: a chunk with a non-empty "choices" is a token
// arrival (even when its text is empty, as for a special token); a chunk
// without choices may carry the "usage" that stream_options.include_usage
// asks for; "[DONE]" ends the stream.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace pagoda::apps::bench_serve {

struct CompletionChunk {
  bool done = false;         // data: [DONE]
  bool has_choices = false;  // a token arrived
  std::string text;          // choices[0].text
  std::optional<int64_t> completion_tokens;
  std::optional<int64_t> prompt_tokens;
  // An {"error": ...} event or data that is not a JSON object: the message.
  std::string error;
};

CompletionChunk ParseCompletionChunk(const std::string& data);

}  // namespace pagoda::apps::bench_serve
