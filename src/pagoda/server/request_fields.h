// What the server does with each top-level field of a completions or chat
// request. Every field of OpenAI's and vLLM's schemas for the endpoint
// (tests/fixtures/server/request_fields.json) is one of:
//   honoured: it does what OpenAI or vLLM documents;
//   refused:  a 400 that names it and says why, unless it has the value that
//             asks for nothing (suffix "", store false, modalities ["text"]);
//   metadata: it changes no output (user, metadata, OpenAI's prompt-cache
//             hints): checked against OpenAI's schema and logged with the
//             request's id.
// Any other field is accepted and named in one warning per request, in
// vLLM's words, so clients that send extras keep working.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pagoda/server/field_reader.h"
#include "pagoda/server/sampling_request.h"

namespace pagoda::server {

enum class FieldPolicy { kHonoured, kRefused, kMetadata };

// nullopt: the endpoint does not know the field.
std::optional<FieldPolicy> PolicyOf(Endpoint endpoint, std::string_view field);

// The fields of `body` the endpoint does not know, sorted.
std::vector<std::string> UnknownFields(const nlohmann::json& body, Endpoint endpoint);

// vLLM's warning naming `fields` (at most 32 of them, then how many more).
std::string IgnoredFieldsWarning(const std::vector<std::string>& fields);

// Run first on each request (the reader's object): warns about unknown
// fields, refuses (in `r`) the first field that asks for what Pagoda cannot
// do, checks the metadata fields and logs them with the request's `id`.
void ScreenRequestFields(FieldReader& r, Endpoint endpoint, std::string_view id);

}  // namespace pagoda::server
