// Reads the key/value section of a GGUF file into Values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/formats/gguf/byte_reader.h"
#include "pagoda/formats/gguf/gguf_value.h"

namespace pagoda::gguf {

// The spec allows arrays of arrays without a limit; real files never nest
// deeply, and a bound keeps recursion on hostile input shallow.
inline constexpr int kMaxArrayDepth = 8;

// Fewest bytes one key/value entry can take: key length, value type, one byte.
inline constexpr uint64_t kMinMetadataEntryBytes = 8 + 4 + 1;

struct Metadata {
  std::vector<std::pair<std::string, Value>> entries;  // file order
  std::unordered_map<std::string_view, size_t> index;  // key -> entry; views into the file
};

// Reads `count` entries; rejects duplicate keys and unknown value types.
StatusOr<Metadata> ReadMetadata(ByteReader& reader, uint64_t count);

}  // namespace pagoda::gguf
