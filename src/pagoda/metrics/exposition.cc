#include "pagoda/metrics/exposition.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <system_error>

#include "pagoda/base/check.h"

namespace pagoda::metrics {
namespace {

// Python's repr(float): the shortest round-trip digits, in fixed notation
// for decimal exponents -4..15 (always with a fractional part, "1.0") and in
// scientific notation otherwise ("1e-05", "1.5e+16").
std::string PythonRepr(double value) {
  // Shortest round-trip digits in scientific form, e.g. "-1.25e-05".
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  PAGODA_CHECK(ec == std::errc());
  std::string_view sci(buf, static_cast<size_t>(end - buf));
  const size_t e_pos = sci.find('e');
  std::string_view mantissa = sci.substr(0, e_pos);
  std::string_view exponent_text = sci.substr(e_pos + 1);
  if (exponent_text.front() == '+') exponent_text.remove_prefix(1);  // from_chars takes no '+'
  int exponent = 0;
  std::from_chars(exponent_text.data(), exponent_text.data() + exponent_text.size(), exponent);

  std::string out;
  if (mantissa.front() == '-') {
    out += '-';
    mantissa.remove_prefix(1);
  }
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }

  if (exponent < -4 || exponent > 15) {
    out += digits[0];
    if (digits.size() > 1) {
      out += '.';
      out.append(digits, 1);
    }
    fmt::format_to(std::back_inserter(out), "e{}{:02d}", exponent < 0 ? '-' : '+', std::abs(exponent));
    return out;
  }
  if (exponent < 0) {
    out += "0.";
    out.append(static_cast<size_t>(-exponent - 1), '0');
    out += digits;
    return out;
  }
  const size_t integer_digits = static_cast<size_t>(exponent) + 1;
  if (digits.size() <= integer_digits) {
    out += digits;
    out.append(integer_digits - digits.size(), '0');
    out += ".0";
  } else {
    out.append(digits, 0, integer_digits);
    out += '.';
    out.append(digits, integer_digits);
  }
  return out;
}

}  // namespace

std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  std::string s = PythonRepr(value);
  // floatToGoString: "Go switches to exponents sooner than Python", for
  // positive values with more than 6 digits before the point.
  const size_t dot = s.find('.');
  if (value > 0 && dot != std::string::npos && dot > 6) {
    std::string mantissa = s.substr(0, 1) + "." + s.substr(1, dot - 1) + s.substr(dot + 1);
    // Python's rstrip('0.'): trailing zeros and points, in any mix.
    while (!mantissa.empty() && (mantissa.back() == '0' || mantissa.back() == '.')) mantissa.pop_back();
    return fmt::format("{}e+{:02d}", mantissa, dot - 1);
  }
  return s;
}

void AppendEscapedLabelValue(std::string& out, std::string_view value) {
  for (char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
}

void AppendEscapedHelp(std::string& out, std::string_view help) {
  for (char c : help) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
}

namespace {
bool IsLetterOrUnderscore(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

bool IsValidMetricName(std::string_view name) {
  if (name.empty() || !(IsLetterOrUnderscore(name[0]) || name[0] == ':')) return false;
  for (char c : name) {
    if (!(IsLetterOrUnderscore(c) || IsDigit(c) || c == ':')) return false;
  }
  return true;
}

bool IsValidLabelName(std::string_view name) {
  if (name.empty() || !IsLetterOrUnderscore(name[0]) || name.starts_with("__")) return false;
  for (char c : name) {
    if (!(IsLetterOrUnderscore(c) || IsDigit(c))) return false;
  }
  return true;
}

}  // namespace pagoda::metrics
