#include "pagoda/chat_template/value_format.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "pagoda/chat_template/unicode.h"

namespace pagoda::chat_template {
namespace {

// Namespaces can contain themselves; lists and dicts alone are bounded by
// kMaxValueDepth.
constexpr int kMaxReprDepth = 2 * kMaxValueDepth;

// Python's str.isprintable() for code points outside ASCII, approximately:
// the separators, format characters, surrogates, private use and
// noncharacters that repr() escapes. Unassigned code points count as
// printable here.
bool IsPrintableNonAscii(char32_t c) {
  if (c <= 0xA0 || c == 0xAD || c == 0x61C || c == 0x6DD || c == 0x70F || c == 0x180E || c == 0x1680 || c == 0x3000 ||
      c == 0xFEFF || c == 0x110BD || c == 0x110CD || c == 0xE0001) {
    return false;
  }
  if ((c >= 0x600 && c <= 0x605) || (c >= 0x890 && c <= 0x891) || (c >= 0x2000 && c <= 0x200F) ||
      (c >= 0x2028 && c <= 0x202F) || (c >= 0x205F && c <= 0x2064) || (c >= 0x2066 && c <= 0x206F) ||
      (c >= 0xD800 && c <= 0xF8FF) || (c >= 0xFFF9 && c <= 0xFFFB) || (c >= 0x13430 && c <= 0x1343F) ||
      (c >= 0x1BCA0 && c <= 0x1BCA3) || (c >= 0x1D173 && c <= 0x1D17A) || (c >= 0xE0020 && c <= 0xE007F) ||
      c >= 0xF0000) {
    return false;
  }
  return (c & 0xFFFE) != 0xFFFE;  // U+xxFFFE and U+xxFFFF are noncharacters
}

void AppendReprSequence(const ListData& list, BoundedString* out, int depth) {
  out->Append(list.is_tuple ? '(' : '[');
  for (size_t i = 0; i < list.items.size(); ++i) {
    if (i > 0) out->Append(", ");
    AppendRepr(list.items[i], out, depth + 1);
  }
  if (list.is_tuple && list.items.size() == 1) out->Append(',');
  out->Append(list.is_tuple ? ')' : ']');
}

}  // namespace

std::string FormatFloat(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  const std::string_view sci(buf, result.ptr - buf);  // "-d.ddde+XX"
  const size_t e = sci.find('e');
  std::string out = std::signbit(value) ? "-" : "";
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c >= '0' && c <= '9') digits.push_back(c);
  }
  const int exponent = std::atoi(std::string(sci.substr(e + 1)).c_str());
  const int point = exponent + 1;  // digits before the decimal point
  if (point <= -4 || point > 16) {
    out.append(digits, 0, 1);
    if (digits.size() > 1) out.append(".").append(digits, 1);
    out.append(fmt::format("e{}{:02d}", exponent < 0 ? '-' : '+', std::abs(exponent)));
  } else if (point <= 0) {
    out.append("0.").append(-point, '0').append(digits);
  } else if (static_cast<size_t>(point) >= digits.size()) {
    out.append(digits).append(point - digits.size(), '0').append(".0");
  } else {
    out.append(digits, 0, point).append(".").append(digits, point);
  }
  return out;
}

void AppendReprString(std::string_view text, BoundedString* out) {
  const bool has_single = text.find('\'') != std::string_view::npos;
  const bool has_double = text.find('"') != std::string_view::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  out->Append(quote);
  for (size_t i = 0; i < text.size();) {
    const size_t start = i;
    const char32_t c = DecodeUtf8(text, &i);
    if (c == static_cast<char32_t>(quote) || c == '\\') {
      out->Append('\\');
      out->Append(static_cast<char>(c));
    } else if (c == '\t') {
      out->Append("\\t");
    } else if (c == '\n') {
      out->Append("\\n");
    } else if (c == '\r') {
      out->Append("\\r");
    } else if (c < 0x20 || c == 0x7F) {
      out->Append(fmt::format("\\x{:02x}", static_cast<unsigned>(c)));
    } else if (c < 0x7F || IsPrintableNonAscii(c)) {
      out->Append(text.substr(start, i - start));
    } else if (c <= 0xFF) {
      out->Append(fmt::format("\\x{:02x}", static_cast<unsigned>(c)));
    } else if (c <= 0xFFFF) {
      out->Append(fmt::format("\\u{:04x}", static_cast<unsigned>(c)));
    } else {
      out->Append(fmt::format("\\U{:08x}", static_cast<unsigned>(c)));
    }
  }
  out->Append(quote);
}

std::string EscapeHtml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&#34;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

void AppendRepr(const Value& value, BoundedString* out, int depth) {
  if (depth > kMaxReprDepth) ThrowRuntime("value nests too deeply to print");
  switch (value.kind()) {
    case Value::Kind::kUndefined: out->Append("Undefined"); return;
    case Value::Kind::kNone: out->Append("None"); return;
    case Value::Kind::kBool: out->Append(value.bool_value() ? "True" : "False"); return;
    case Value::Kind::kInt: out->Append(fmt::format("{}", value.int_value())); return;
    case Value::Kind::kFloat: out->Append(FormatFloat(value.number_value())); return;
    case Value::Kind::kString:
      if (value.is_markup()) out->Append("Markup(");
      AppendReprString(value.string_value(), out);
      if (value.is_markup()) out->Append(")");
      return;
    case Value::Kind::kList: AppendReprSequence(value.list(), out, depth); return;
    case Value::Kind::kDict: {
      out->Append('{');
      bool first = true;
      for (const auto& [key, item] : value.dict().entries()) {
        if (!first) out->Append(", ");
        first = false;
        AppendRepr(key, out, depth + 1);
        out->Append(": ");
        AppendRepr(item, out, depth + 1);
      }
      out->Append('}');
      return;
    }
    case Value::Kind::kObject: value.object().AppendRepr(out, depth + 1); return;
    case Value::Kind::kCallable: out->Append(fmt::format("<function {}>", value.callable().name())); return;
  }
}

void AppendStr(const Value& value, BoundedString* out) {
  switch (value.kind()) {
    case Value::Kind::kUndefined: return;
    case Value::Kind::kString: out->Append(value.string_value()); return;
    default: AppendRepr(value, out);
  }
}

}  // namespace pagoda::chat_template
