// The structured-output fields of a completions or chat request, from
// every spelling a client may use: vLLM's `structured_outputs` object,
// OpenAI's `response_format`, and vLLM's legacy `guided_json`,
// `guided_regex`, `guided_choice`, `guided_grammar` (with
// `guided_whitespace_pattern` and `guided_decoding_backend`). They become
// one StructuredOutputsParams; two constraints from any of them are a 400
// naming both fields.
#pragma once

#include <nlohmann/json.hpp>

#include "pagoda/request/sampling_params.h"
#include "pagoda/server/field_reader.h"

namespace pagoda::server {

// Reads the fields into p.structured_outputs (left unset when none is
// given); errors go to the reader. `ordered_body` is the same request read
// with its key order, which a JSON schema's properties keep.
void ReadStructuredOutputs(FieldReader& r, const nlohmann::ordered_json& ordered_body, SamplingParams& p);

}  // namespace pagoda::server
