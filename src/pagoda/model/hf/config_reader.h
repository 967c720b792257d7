// Typed reads of a Hugging Face config.json (or one of its nested objects),
// with errors that name the file's key. A key set to null counts as absent,
// as transformers treats it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pagoda/base/status.h"

namespace pagoda::hf {

class ConfigReader {
 public:
  // `where` prefixes key names in errors: "config.json", "config.json rope_parameters".
  ConfigReader(const nlohmann::json& object, std::string where) : object_(&object), where_(std::move(where)) {}

  static StatusOr<nlohmann::json> ParseFile(const std::string& path);

  bool Has(const std::string& key) const;
  // A whole number in (0, 2^31].
  StatusOr<int64_t> PositiveInt(const std::string& key) const;
  StatusOr<int64_t> PositiveInt(const std::string& key, int64_t fallback) const;
  StatusOr<double> Number(const std::string& key) const;
  StatusOr<double> Number(const std::string& key, double fallback) const;
  StatusOr<bool> Bool(const std::string& key, bool fallback) const;
  StatusOr<std::string> String(const std::string& key) const;
  StatusOr<std::string> String(const std::string& key, const std::string& fallback) const;
  StatusOr<std::vector<double>> Numbers(const std::string& key) const;
  StatusOr<std::vector<std::string>> Strings(const std::string& key) const;
  // A nested object, read with its own reader; NotFound when absent.
  StatusOr<ConfigReader> Object(const std::string& key) const;

  const std::string& where() const { return where_; }
  // "config.json: <key> ..." for errors about one key's value.
  std::string Name(const std::string& key) const { return where_ + " key '" + key + "'"; }

 private:
  StatusOr<const nlohmann::json*> Get(const std::string& key) const;

  const nlohmann::json* object_;
  std::string where_;
};

}  // namespace pagoda::hf
