// Rewrites a GGUF model in another file type (`pagoda quantize`), as
// llama-quantize does without an importance matrix: the same tensor types
// (type_mix.h) and, from GGML's reference quantizers, the same bytes.
#pragma once

#include <iosfwd>
#include <string>

#include "pagoda/base/status.h"
#include "pagoda/quantize/file_type.h"

namespace pagoda::quantize {

struct RequantizeOptions {
  FileType file_type = FileType::kQ4_K_M;
  // Quantized input tensors are dequantized first, which compounds two
  // roundings; as with llama-quantize, that takes an explicit yes.
  bool allow_requantize = false;
};

// Writes `output` from `input`; one line per tensor and a summary go to `log`.
Status Requantize(const std::string& input, const std::string& output, const RequantizeOptions& options,
                  std::ostream& log);

}  // namespace pagoda::quantize
