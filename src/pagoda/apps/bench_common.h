// What the `bench` subcommands share: the ids synthetic prompts are drawn
// from, and writing the --output-json result.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/tokenizer/tokenizer.h"

namespace pagoda::apps {

// Every non-special token id, so no random prompt holds EOS or a chat marker.
std::vector<int32_t> PromptVocabulary(const tokenizer::Tokenizer& tok);

// `result` as indented JSON in `path`, or an error naming the path.
Status WriteJsonFile(const std::string& path, const nlohmann::json& result);

}  // namespace pagoda::apps
