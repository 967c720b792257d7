// Python's str() and repr() of template values, which is what `{{ x }}`,
// `~`, the string filter and printing a list or dict show.
#pragma once

#include <string>
#include <string_view>

#include "pagoda/chat_template/bounded_string.h"
#include "pagoda/chat_template/value.h"

namespace pagoda::chat_template {

// repr(float): the shortest digits that read back to the same double, in
// fixed notation for exponents -5 < e < 16 and scientific otherwise.
std::string FormatFloat(double value);

// str(value); undefined prints as the empty string.
void AppendStr(const Value& value, BoundedString* out);
// repr(value); `depth` counts enclosing containers and bounds recursion
// through namespaces that contain themselves.
void AppendRepr(const Value& value, BoundedString* out, int depth = 0);
void AppendReprString(std::string_view text, BoundedString* out);
// markupsafe's escape(): & < > " ' as HTML entities.
std::string EscapeHtml(std::string_view text);

}  // namespace pagoda::chat_template
