#include "pagoda/model/hf/generation_config.h"

#include <filesystem>

#include "pagoda/model/hf/config_reader.h"

namespace pagoda::hf {

namespace {

// vLLM reads the file through transformers' GenerationConfig.to_diff_dict(),
// which drops values equal to transformers' defaults: such a value is not a
// recommendation and leaves vLLM's own default in place.
constexpr double kDefaultTemperature = 1.0;
constexpr double kDefaultTopP = 1.0;
constexpr double kDefaultTopK = 50;
constexpr double kDefaultRepetitionPenalty = 1.0;

StatusOr<std::optional<double>> NonDefault(const ConfigReader& r, const std::string& key, std::optional<double> default_value) {
  if (!r.Has(key)) return std::optional<double>();
  PAGODA_ASSIGN_OR_RETURN(const double v, r.Number(key));
  if (default_value && v == *default_value) return std::optional<double>();
  return std::optional<double>(v);
}

}  // namespace

StatusOr<GenerationConfig> ReadGenerationConfig(const std::string& directory) {
  const std::filesystem::path path = std::filesystem::path(directory) / "generation_config.json";
  GenerationConfig g;
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return g;
  PAGODA_ASSIGN_OR_RETURN(const nlohmann::json json, ConfigReader::ParseFile(path.string()));
  const ConfigReader r(json, "generation_config.json");
  PAGODA_ASSIGN_OR_RETURN(g.temperature, NonDefault(r, "temperature", kDefaultTemperature));
  PAGODA_ASSIGN_OR_RETURN(g.top_p, NonDefault(r, "top_p", kDefaultTopP));
  PAGODA_ASSIGN_OR_RETURN(g.min_p, NonDefault(r, "min_p", std::nullopt));
  PAGODA_ASSIGN_OR_RETURN(g.repetition_penalty, NonDefault(r, "repetition_penalty", kDefaultRepetitionPenalty));
  PAGODA_ASSIGN_OR_RETURN(const std::optional<double> top_k, NonDefault(r, "top_k", kDefaultTopK));
  if (top_k) {
    if (*top_k != static_cast<int32_t>(*top_k)) return InvalidArgumentError(r.Name("top_k") + " must be an integer");
    g.top_k = static_cast<int32_t>(*top_k);
  }
  if (r.Has("max_new_tokens")) {
    PAGODA_ASSIGN_OR_RETURN(const int64_t max_new, r.PositiveInt("max_new_tokens"));
    g.max_new_tokens = static_cast<int32_t>(max_new);
  }
  if (r.Has("eos_token_id")) {
    std::vector<double> ids;
    if (StatusOr<double> one = r.Number("eos_token_id"); one.ok()) {
      ids = {*one};
    } else {
      PAGODA_ASSIGN_OR_RETURN(ids, r.Numbers("eos_token_id"));
    }
    for (double id : ids) {
      if (id < 0 || id > 1e9 || id != static_cast<int32_t>(id)) {
        return InvalidArgumentError(r.Name("eos_token_id") + " must be token ids");
      }
      g.eos_token_ids.push_back(static_cast<int32_t>(id));
    }
  }
  return g;
}

}  // namespace pagoda::hf
