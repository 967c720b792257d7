// Parses and validates a safetensors file held in memory: the 8-byte
// little-endian header length, the JSON header and the data section it
// describes. Checks what the format's reference implementation checks:
// the header length against the file and a 100 MB bound, every dtype,
// shape and data_offsets entry, and that the tensors' byte ranges tile the
// data section exactly (no overlap, no gap, nothing left over). Errors do
// not name the file: the caller adds it.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/formats/safetensors/safetensors_tensor.h"

namespace pagoda::safetensors {

// The reference implementation's bound on the header, which keeps a corrupt
// length from making the reader allocate or parse gigabytes.
inline constexpr uint64_t kMaxHeaderBytes = 100'000'000;

struct ParsedSafetensors {
  std::vector<SafetensorsTensor> tensors;      // in data-section order; spans view `bytes`
  std::map<std::string, std::string> metadata;  // the "__metadata__" entry, if any
  uint64_t data_offset = 0;                      // where the data section starts in the file
};

// DataLoss for a corrupt file, Unimplemented for a dtype this reader does not know.
StatusOr<ParsedSafetensors> ParseSafetensors(std::span<const uint8_t> bytes);

}  // namespace pagoda::safetensors
