// Helpers shared by the GGUF tests: fixture paths, whole-file reads, field
// patching in fixture bytes, and appending raw GGUF fields for hand-built files.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pagoda::gguf::testing {

using Bytes = std::vector<uint8_t>;

std::string FixturePath(std::string_view name);  // under tests/fixtures/gguf
Bytes ReadFile(const std::string& path);

// Offset just past the GGUF string `s` (uint64 length + bytes) in `bytes`:
// where a key's value type or a tensor name's dimension count starts.
// Fails the current test (and returns 0) when `s` is absent or ambiguous.
size_t OffsetAfterString(const Bytes& bytes, std::string_view s);

uint32_t GetU32(const Bytes& bytes, size_t at);
uint64_t GetU64(const Bytes& bytes, size_t at);
void PutU32(Bytes& bytes, size_t at, uint32_t v);
void PutU64(Bytes& bytes, size_t at, uint64_t v);

void AppendU32(Bytes& bytes, uint32_t v);
void AppendU64(Bytes& bytes, uint64_t v);
void AppendString(Bytes& bytes, std::string_view s);
// Magic, version and the two counts.
Bytes Header(uint32_t version, uint64_t tensor_count, uint64_t metadata_count);

}  // namespace pagoda::gguf::testing
