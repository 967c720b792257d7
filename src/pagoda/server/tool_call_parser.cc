#include "pagoda/server/tool_call_parser.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "pagoda/server/json_tool_calls.h"
#include "pagoda/server/pythonic_tool_calls.h"

namespace pagoda::server {

const std::vector<std::string>& ToolCallParserNames() {
  static const std::vector<std::string> names = {"hermes", "llama3_json", "mistral", "pythonic"};
  return names;
}

StatusOr<std::unique_ptr<ToolCallParser>> MakeToolCallParser(std::string_view name) {
  if (name == "hermes") return std::unique_ptr<ToolCallParser>(new HermesToolCallParser());
  if (name == "llama3_json") return std::unique_ptr<ToolCallParser>(new Llama3JsonToolCallParser());
  if (name == "mistral") return std::unique_ptr<ToolCallParser>(new MistralToolCallParser());
  if (name == "pythonic") return std::unique_ptr<ToolCallParser>(new PythonicToolCallParser());
  return InvalidArgumentError(fmt::format("unknown tool call parser '{}': the parsers are {}", name,
                                          fmt::join(ToolCallParserNames(), ", ")));
}

size_t MarkerPrefixSuffix(std::string_view text, std::string_view marker) {
  for (size_t length = std::min(text.size(), marker.size() - 1); length > 0; --length) {
    if (text.substr(text.size() - length) == marker.substr(0, length)) return length;
  }
  return 0;
}

}  // namespace pagoda::server
