#include "pagoda/request/structured_outputs_params.h"

#include <algorithm>

namespace pagoda {

int StructuredOutputsParams::NumConstraints() const {
  return json.has_value() + regex.has_value() + choice.has_value() + grammar.has_value() + json_object.has_value() +
         structural_tag.has_value();
}

Status StructuredOutputsParams::Validate() const {
  const int count = NumConstraints();
  if (count == 0) {
    return InvalidArgumentError(
        "structured_outputs: you must use one kind of structured outputs constraint but none is specified "
        "(json, regex, choice, grammar, json_object or structural_tag)");
  }
  if (count > 1) {
    return InvalidArgumentError(
        "structured_outputs: you can only use one kind of structured outputs constraint but multiple are specified");
  }
  if (structural_tag) return UnimplementedError("structured_outputs.structural_tag is not supported");
  if (choice && choice->empty()) return InvalidArgumentError("structured_outputs.choice must not be empty");
  if (json_object && !*json_object) {
    return InvalidArgumentError("structured_outputs.json_object must be true when given");
  }
  if (whitespace_pattern && !json && !json_object) {
    return InvalidArgumentError("structured_outputs.whitespace_pattern applies only to json and json_object");
  }
  return Status::Ok();
}

}  // namespace pagoda
