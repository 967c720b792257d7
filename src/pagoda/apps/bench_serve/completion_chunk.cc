#include "pagoda/apps/bench_serve/completion_chunk.h"

#include <nlohmann/json.hpp>

namespace pagoda::apps::bench_serve {
namespace {

std::optional<int64_t> IntField(const nlohmann::json& object, const char* name) {
  const auto it = object.find(name);
  if (it == object.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

std::string ErrorMessage(const nlohmann::json& error) {
  if (error.is_object() && error.contains("message") && error["message"].is_string()) {
    return error["message"].get<std::string>();
  }
  return error.is_string() ? error.get<std::string>() : error.dump();
}

}  // namespace

CompletionChunk ParseCompletionChunk(const std::string& data) {
  CompletionChunk chunk;
  if (data == "[DONE]") {
    chunk.done = true;
    return chunk;
  }
  const nlohmann::json j = nlohmann::json::parse(data, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    chunk.error = "the server sent an event that is not a JSON object: " + data.substr(0, 200);
    return chunk;
  }
  if (const auto error = j.find("error"); error != j.end() && !error->is_null()) {
    chunk.error = ErrorMessage(*error);
    return chunk;
  }
  if (const auto choices = j.find("choices"); choices != j.end() && choices->is_array() && !choices->empty()) {
    chunk.has_choices = true;
    const nlohmann::json& first = choices->front();
    if (first.is_object() && first.contains("text") && first["text"].is_string()) {
      chunk.text = first["text"].get<std::string>();
    }
  }
  if (const auto usage = j.find("usage"); usage != j.end() && usage->is_object()) {
    chunk.completion_tokens = IntField(*usage, "completion_tokens");
    chunk.prompt_tokens = IntField(*usage, "prompt_tokens");
  }
  return chunk;
}

}  // namespace pagoda::apps::bench_serve
