// Typed reads of a GGUF's `<architecture>.*` hyper-parameters, with the
// defaults llama.cpp uses when a key is absent.
#pragma once

#include <cstdint>
#include <string>

#include "pagoda/base/status.h"

namespace pagoda::gguf {
class GgufFile;
}

namespace pagoda {

class Hparams {
 public:
  // Keys are read as `<architecture>.<key>`.
  Hparams(const gguf::GgufFile& file, std::string architecture);

  bool Has(const std::string& key) const;
  // A positive integer no larger than 2^31.
  StatusOr<int64_t> PositiveInt(const std::string& key) const;
  StatusOr<int64_t> PositiveInt(const std::string& key, int64_t fallback) const;
  // A non-negative integer no larger than 2^31 (0 often means "off").
  StatusOr<int64_t> NonNegativeInt(const std::string& key, int64_t fallback) const;
  StatusOr<float> Float(const std::string& key) const;
  StatusOr<float> Float(const std::string& key, float fallback) const;
  StatusOr<std::string> String(const std::string& key, const std::string& fallback) const;

 private:
  std::string Key(const std::string& key) const { return prefix_ + key; }

  const gguf::GgufFile& file_;
  std::string prefix_;
};

}  // namespace pagoda
