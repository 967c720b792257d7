#include "pagoda/chat_template/json_dumps.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "pagoda/chat_template/operators.h"
#include "pagoda/chat_template/value_format.h"

namespace pagoda::chat_template {
namespace {

// json.dumps turns keys that are not strings into strings.
std::string KeyString(const Value& key) {
  switch (key.kind()) {
    case Value::Kind::kString: return key.string_value();
    case Value::Kind::kNone: return "null";
    case Value::Kind::kBool: return key.bool_value() ? "true" : "false";
    case Value::Kind::kInt: return fmt::format("{}", key.int_value());
    case Value::Kind::kFloat: {
      const double f = key.number_value();
      if (std::isnan(f)) return "NaN";
      if (std::isinf(f)) return f > 0 ? "Infinity" : "-Infinity";
      return FormatFloat(f);
    }
    default: ThrowRuntime("keys must be str, int, float, bool or None, not {}", TypeName(key));
  }
}

// Python escapes exactly what nlohmann does: quote, backslash and control
// characters (as \u00XX), plus everything past ASCII under ensure_ascii.
void AppendJsonString(const std::string& text, bool ensure_ascii, BoundedString* out) {
  out->Append(nlohmann::json(text).dump(-1, ' ', ensure_ascii, nlohmann::json::error_handler_t::replace));
}

void AppendNewline(const JsonDumpOptions& options, int level, BoundedString* out) {
  out->Append('\n');
  for (int i = 0; i < level; ++i) out->Append(*options.indent);
}

void AppendJsonAt(const Value& value, const JsonDumpOptions& options, int level, BoundedString* out) {
  switch (value.kind()) {
    case Value::Kind::kNone: out->Append("null"); return;
    case Value::Kind::kBool: out->Append(value.bool_value() ? "true" : "false"); return;
    case Value::Kind::kInt: out->Append(fmt::format("{}", value.int_value())); return;
    case Value::Kind::kFloat: {
      const double f = value.number_value();
      if (std::isnan(f)) {
        out->Append("NaN");
      } else if (std::isinf(f)) {
        out->Append(f > 0 ? "Infinity" : "-Infinity");
      } else {
        out->Append(FormatFloat(f));
      }
      return;
    }
    case Value::Kind::kString: AppendJsonString(value.string_value(), options.ensure_ascii, out); return;
    case Value::Kind::kList: {
      const auto& items = value.list().items;
      if (items.empty()) {
        out->Append("[]");
        return;
      }
      out->Append('[');
      for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out->Append(options.item_separator);
        if (options.indent) AppendNewline(options, level + 1, out);
        AppendJsonAt(items[i], options, level + 1, out);
      }
      if (options.indent) AppendNewline(options, level, out);
      out->Append(']');
      return;
    }
    case Value::Kind::kDict: {
      const auto& entries = value.dict().entries();
      if (entries.empty()) {
        out->Append("{}");
        return;
      }
      std::vector<const std::pair<Value, Value>*> order;
      for (const auto& entry : entries) order.push_back(&entry);
      if (options.sort_keys) {
        std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return Less(a->first, b->first); });
      }
      out->Append('{');
      for (size_t i = 0; i < order.size(); ++i) {
        if (i > 0) out->Append(options.item_separator);
        if (options.indent) AppendNewline(options, level + 1, out);
        AppendJsonString(KeyString(order[i]->first), options.ensure_ascii, out);
        out->Append(options.key_separator);
        AppendJsonAt(order[i]->second, options, level + 1, out);
      }
      if (options.indent) AppendNewline(options, level, out);
      out->Append('}');
      return;
    }
    case Value::Kind::kUndefined:
    case Value::Kind::kObject:
    case Value::Kind::kCallable: ThrowRuntime("Object of type {} is not JSON serializable", TypeName(value));
  }
}

}  // namespace

void AppendJson(const Value& value, const JsonDumpOptions& options, BoundedString* out) {
  AppendJsonAt(value, options, 0, out);
}

}  // namespace pagoda::chat_template
