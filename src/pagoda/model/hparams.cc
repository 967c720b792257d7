#include "pagoda/model/hparams.h"

#include <fmt/format.h>

#include <cmath>

#include "pagoda/formats/gguf/gguf_file.h"

namespace pagoda {
namespace {

constexpr int64_t kMaxInt = int64_t{1} << 31;

}  // namespace

Hparams::Hparams(const gguf::GgufFile& file, std::string architecture)
    : file_(file), prefix_(std::move(architecture) + ".") {}

bool Hparams::Has(const std::string& key) const { return file_.Find(Key(key)) != nullptr; }

StatusOr<int64_t> Hparams::PositiveInt(const std::string& key) const {
  PAGODA_ASSIGN_OR_RETURN(int64_t v, file_.GetInt(Key(key)));
  if (v <= 0 || v > kMaxInt) {
    return InvalidArgumentError(fmt::format("metadata '{}' = {} is out of range", Key(key), v));
  }
  return v;
}

StatusOr<int64_t> Hparams::PositiveInt(const std::string& key, int64_t fallback) const {
  if (!Has(key)) return fallback;
  return PositiveInt(key);
}

StatusOr<int64_t> Hparams::NonNegativeInt(const std::string& key, int64_t fallback) const {
  if (!Has(key)) return fallback;
  PAGODA_ASSIGN_OR_RETURN(int64_t v, file_.GetInt(Key(key)));
  if (v < 0 || v > kMaxInt) {
    return InvalidArgumentError(fmt::format("metadata '{}' = {} is out of range", Key(key), v));
  }
  return v;
}

StatusOr<float> Hparams::Float(const std::string& key) const {
  PAGODA_ASSIGN_OR_RETURN(double v, file_.GetFloat(Key(key)));
  if (!std::isfinite(v)) return InvalidArgumentError(fmt::format("metadata '{}' is not finite", Key(key)));
  return static_cast<float>(v);
}

StatusOr<float> Hparams::Float(const std::string& key, float fallback) const {
  if (!Has(key)) return fallback;
  return Float(key);
}

StatusOr<std::string> Hparams::String(const std::string& key, const std::string& fallback) const {
  if (!Has(key)) return fallback;
  return file_.GetString(Key(key));
}

}  // namespace pagoda
