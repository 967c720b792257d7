// The shared pieces of Prometheus' text exposition format 0.0.4, written the
// way Python's prometheus_client writes them: vLLM serves /metrics through
// that client, and Pagoda's output is meant to be indistinguishable from it.
#pragma once

#include <string>
#include <string_view>

namespace pagoda::metrics {

// The Content-Type of a text format 0.0.4 response.
inline constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

// prometheus_client's floatToGoString: Python's repr of the double (the
// shortest digits that read back to it: "1.0", "0.005", "1e-05", "1e+16"),
// except that a positive number with more than 6 integer digits switches to
// an exponent as Go would ("1e+06", "1.5e+07"); "+Inf", "-Inf" and "NaN".
std::string FormatValue(double value);

// A label value between its double quotes: backslash, double quote and
// newline escaped.
void AppendEscapedLabelValue(std::string& out, std::string_view value);

// HELP text: backslash and newline escaped (a double quote stays as it is).
void AppendEscapedHelp(std::string& out, std::string_view help);

// [a-zA-Z_:][a-zA-Z0-9_:]*, the names prometheus_client writes unquoted.
bool IsValidMetricName(std::string_view name);
// [a-zA-Z_][a-zA-Z0-9_]*, not starting with the reserved "__".
bool IsValidLabelName(std::string_view name);

}  // namespace pagoda::metrics
