// Typed access to a JSON request object's fields, for request parsing that
// reports the first bad field by name (OpenAI's param) instead of throwing.
// A missing or null field reads as unset, as in OpenAI's and vLLM's schemas.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pagoda/server/api_error.h"

namespace pagoda::server {

class FieldReader {
 public:
  // `object` must outlive the reader; a non-object is an error at once.
  explicit FieldReader(const nlohmann::json& object);

  std::optional<int64_t> Int(std::string_view name);
  std::optional<double> Number(std::string_view name);  // integers accepted
  std::optional<bool> Bool(std::string_view name);
  std::optional<std::string> String(std::string_view name);
  // The field as is (null when missing or null), for shapes with alternatives.
  const nlohmann::json& Raw(std::string_view name) const;
  bool Has(std::string_view name) const { return !Raw(name).is_null(); }
  const nlohmann::json& object() const { return object_; }

  // Records an error about `name` (empty: no one field) unless one is
  // recorded already.
  void Fail(std::string_view name, std::string message);
  bool ok() const { return !error_.has_value(); }
  const std::optional<ApiError>& error() const { return error_; }

 private:
  const nlohmann::json& object_;
  std::optional<ApiError> error_;
};

}  // namespace pagoda::server
