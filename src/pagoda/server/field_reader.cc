#include "pagoda/server/field_reader.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>

namespace pagoda::server {
namespace {

const nlohmann::json& Null() {
  static const nlohmann::json null;
  return null;
}

}  // namespace

FieldReader::FieldReader(const nlohmann::json& object) : object_(object) {
  if (!object_.is_object()) error_ = BadRequest("the request body must be a JSON object");
}

const nlohmann::json& FieldReader::Raw(std::string_view name) const {
  if (!object_.is_object()) return Null();
  auto it = object_.find(name);
  return it == object_.end() ? Null() : *it;
}

void FieldReader::Fail(std::string_view name, std::string message) {
  if (!error_) error_ = BadRequest(std::move(message), name.empty() ? std::nullopt : std::optional<std::string>(name));
}

std::optional<int64_t> FieldReader::Int(std::string_view name) {
  const nlohmann::json& v = Raw(name);
  if (v.is_null()) return std::nullopt;
  // Past int64's range, rather than wrapped (2^64 - 1 would read as -1).
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    Fail(name, fmt::format("'{}' is out of range", name));
    return std::nullopt;
  }
  // JSON has one number type: 2.0 is an integer to Python's pydantic too.
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) return static_cast<int64_t>(d);
  }
  Fail(name, fmt::format("'{}' must be an integer", name));
  return std::nullopt;
}

std::optional<double> FieldReader::Number(std::string_view name) {
  const nlohmann::json& v = Raw(name);
  if (v.is_null()) return std::nullopt;
  if (v.is_number()) return v.get<double>();
  Fail(name, fmt::format("'{}' must be a number", name));
  return std::nullopt;
}

std::optional<bool> FieldReader::Bool(std::string_view name) {
  const nlohmann::json& v = Raw(name);
  if (v.is_null()) return std::nullopt;
  if (v.is_boolean()) return v.get<bool>();
  Fail(name, fmt::format("'{}' must be a boolean", name));
  return std::nullopt;
}

std::optional<std::string> FieldReader::String(std::string_view name) {
  const nlohmann::json& v = Raw(name);
  if (v.is_null()) return std::nullopt;
  if (v.is_string()) return v.get<std::string>();
  Fail(name, fmt::format("'{}' must be a string", name));
  return std::nullopt;
}

}  // namespace pagoda::server
