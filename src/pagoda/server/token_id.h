// Token ids as requests give them, checked against the vocabulary.
#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

namespace pagoda::server {

// `v` as a token id if it is a JSON integer in [0, vocab_size). Integers
// past 64 bits' signed range and negative ones are out of range, never
// wrapped or truncated.
std::optional<int32_t> TokenIdFromJson(const nlohmann::json& v, int64_t vocab_size);

}  // namespace pagoda::server
