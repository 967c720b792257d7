#include "pagoda/chat_template/chat_template.h"

#include <fmt/format.h>

#include "pagoda/chat_template/ast.h"
#include "pagoda/chat_template/error.h"
#include "pagoda/chat_template/interpreter.h"
#include "pagoda/chat_template/json_values.h"
#include "pagoda/chat_template/lexer.h"
#include "pagoda/chat_template/parser.h"
#include "pagoda/chat_template/unicode.h"

namespace pagoda::chat_template {
namespace {

// Offsets are 32-bit; real templates are a few KiB.
constexpr size_t kMaxSourceBytes = size_t{16} << 20;

// "line L, column C" (1-based, columns in characters) of an offset into the
// normalized source.
std::string Position(std::string_view source, uint32_t offset) {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(source.size()));
  const std::string_view before = source.substr(0, offset);
  const size_t line = std::count(before.begin(), before.end(), '\n') + 1;
  const size_t line_start = before.rfind('\n') + 1;  // npos + 1 == 0
  return fmt::format("line {}, column {}", line, CodepointCount(before.substr(line_start)) + 1);
}

Status ToStatus(const TemplateError& e, std::string_view source) {
  switch (e.kind()) {
    case TemplateError::Kind::kRaised: return InvalidArgumentError(e.what());
    case TemplateError::Kind::kSyntax:
      return InvalidArgumentError(
          fmt::format("chat template syntax error at {}: {}", Position(source, e.offset()), e.what()));
    case TemplateError::Kind::kRuntime: break;
  }
  if (e.offset() == kNoOffset) return InvalidArgumentError(fmt::format("chat template error: {}", e.what()));
  return InvalidArgumentError(fmt::format("chat template error at {}: {}", Position(source, e.offset()), e.what()));
}

}  // namespace

struct ChatTemplate::Compiled {
  std::string source;
  std::string normalized;  // what offsets in errors refer to
  ast::Body body;
};

StatusOr<ChatTemplate> ChatTemplate::Parse(std::string source) {
  if (source.size() > kMaxSourceBytes) return InvalidArgumentError("chat template is larger than 16 MiB");
  if (!IsValidUtf8(source)) return InvalidArgumentError("chat template is not valid UTF-8");
  auto compiled = std::make_shared<Compiled>();
  compiled->normalized = NormalizeSource(source);
  compiled->source = std::move(source);
  try {
    compiled->body = ParseTemplate(compiled->normalized);
  } catch (const TemplateError& e) {
    return ToStatus(e, compiled->normalized);
  }
  return ChatTemplate(std::move(compiled));
}

const std::string& ChatTemplate::source() const { return compiled_->source; }

template <typename Json>
StatusOr<std::string> ChatTemplate::RenderJson(const Json& context, const RenderLimits& limits) const {
  if (!context.is_object()) return InvalidArgumentError("chat template context must be a JSON object");
  try {
    Value globals;
    try {
      globals = FromJson(context);
    } catch (const TemplateError& e) {
      return InvalidArgumentError(fmt::format("chat template context: {}", e.what()));
    }
    Interpreter interpreter(limits, std::move(globals));
    return interpreter.Render(compiled_->body);
  } catch (const TemplateError& e) {
    return ToStatus(e, compiled_->normalized);
  }
}

StatusOr<std::string> ChatTemplate::Render(const nlohmann::ordered_json& context, const RenderLimits& limits) const {
  return RenderJson(context, limits);
}

StatusOr<std::string> ChatTemplate::Render(const nlohmann::json& context, const RenderLimits& limits) const {
  return RenderJson(context, limits);
}

}  // namespace pagoda::chat_template
