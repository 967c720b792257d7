// The pythonic tool-call format: the whole output is a Python list of
// calls with keyword arguments, [get_weather(city="Paris", days=3)], whose
// argument values are Python literals (strings, numbers, True/False/None,
// lists, dicts). Arguments become JSON objects. The list is only known to
// be calls once it parses, so nothing is reported before the output ends.
#pragma once

#include "pagoda/server/tool_call_parser.h"

namespace pagoda::server {

class PythonicToolCallParser : public ToolCallParser {
 public:
  ParsedToolOutput Parse(std::string_view text, bool final) const override;
};

}  // namespace pagoda::server
