#include "pagoda/structured/json_schema_pattern.h"

#include "pagoda/structured/json_schema_refs.h"

namespace pagoda::structured {

StatusOr<ExprPtr> PatternStringContents(const std::string& regex, const std::string& pointer) {
  (void)regex;
  return UnimplementedError("JSON schema: keyword 'pattern' at " + Where(pointer) +
                            " is not supported yet (regular expressions)");
}

}  // namespace pagoda::structured
