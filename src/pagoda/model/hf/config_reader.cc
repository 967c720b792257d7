#include "pagoda/model/hf/config_reader.h"

#include <cmath>
#include <fstream>
#include <iterator>

namespace pagoda::hf {
namespace {

using nlohmann::json;

constexpr int64_t kMaxInt = int64_t{1} << 31;

}  // namespace

StatusOr<json> ConfigReader::ParseFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError("cannot read '" + path + "'");
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  try {
    json parsed = json::parse(text);
    if (!parsed.is_object()) return DataLossError("'" + path + "' is not a JSON object");
    return parsed;
  } catch (const json::exception& e) {
    return DataLossError("'" + path + "' is not valid JSON: " + e.what());
  }
}

bool ConfigReader::Has(const std::string& key) const {
  const auto it = object_->find(key);
  return it != object_->end() && !it->is_null();
}

StatusOr<const json*> ConfigReader::Get(const std::string& key) const {
  const auto it = object_->find(key);
  if (it == object_->end() || it->is_null()) return NotFoundError(Name(key) + " is missing");
  return &*it;
}

StatusOr<int64_t> ConfigReader::PositiveInt(const std::string& key) const {
  PAGODA_ASSIGN_OR_RETURN(const json* v, Get(key));
  if (!v->is_number_integer() || v->get<int64_t>() <= 0 || v->get<int64_t>() > kMaxInt) {
    return InvalidArgumentError(Name(key) + " must be a positive integer, is " + v->dump());
  }
  return v->get<int64_t>();
}

StatusOr<int64_t> ConfigReader::PositiveInt(const std::string& key, int64_t fallback) const {
  if (!Has(key)) return fallback;
  return PositiveInt(key);
}

StatusOr<double> ConfigReader::Number(const std::string& key) const {
  PAGODA_ASSIGN_OR_RETURN(const json* v, Get(key));
  if (!v->is_number() || !std::isfinite(v->get<double>())) {
    return InvalidArgumentError(Name(key) + " must be a finite number, is " + v->dump());
  }
  return v->get<double>();
}

StatusOr<double> ConfigReader::Number(const std::string& key, double fallback) const {
  if (!Has(key)) return fallback;
  return Number(key);
}

StatusOr<bool> ConfigReader::Bool(const std::string& key, bool fallback) const {
  if (!Has(key)) return fallback;
  PAGODA_ASSIGN_OR_RETURN(const json* v, Get(key));
  if (!v->is_boolean()) return InvalidArgumentError(Name(key) + " must be true or false, is " + v->dump());
  return v->get<bool>();
}

StatusOr<std::string> ConfigReader::String(const std::string& key) const {
  PAGODA_ASSIGN_OR_RETURN(const json* v, Get(key));
  if (!v->is_string()) return InvalidArgumentError(Name(key) + " must be a string, is " + v->dump());
  return v->get<std::string>();
}

StatusOr<std::string> ConfigReader::String(const std::string& key, const std::string& fallback) const {
  if (!Has(key)) return fallback;
  return String(key);
}

StatusOr<std::vector<double>> ConfigReader::Numbers(const std::string& key) const {
  PAGODA_ASSIGN_OR_RETURN(const json* v, Get(key));
  std::vector<double> out;
  if (v->is_array()) {
    for (const json& e : *v) {
      if (!e.is_number() || !std::isfinite(e.get<double>())) break;
      out.push_back(e.get<double>());
    }
    if (out.size() == v->size()) return out;
  }
  return InvalidArgumentError(Name(key) + " must be an array of finite numbers");
}

StatusOr<std::vector<std::string>> ConfigReader::Strings(const std::string& key) const {
  PAGODA_ASSIGN_OR_RETURN(const json* v, Get(key));
  std::vector<std::string> out;
  if (v->is_array()) {
    for (const json& e : *v) {
      if (!e.is_string()) break;
      out.push_back(e.get<std::string>());
    }
    if (out.size() == v->size()) return out;
  }
  return InvalidArgumentError(Name(key) + " must be an array of strings");
}

StatusOr<ConfigReader> ConfigReader::Object(const std::string& key) const {
  PAGODA_ASSIGN_OR_RETURN(const json* v, Get(key));
  if (!v->is_object()) return InvalidArgumentError(Name(key) + " must be an object, is " + v->dump());
  return ConfigReader(*v, where_ + " " + key);
}

}  // namespace pagoda::hf
