#include "pagoda/formats/gguf/gguf_parser.h"

#include <bit>
#include <cstdio>
#include <cstring>
#include <string>

#include "pagoda/formats/gguf/byte_reader.h"
#include "pagoda/formats/gguf/tensor_info_reader.h"

namespace pagoda::gguf {
namespace {

constexpr char kMagic[4] = {'G', 'G', 'U', 'F'};
constexpr std::string_view kAlignmentKey = "general.alignment";

std::string Hex(const uint8_t* bytes, size_t n) {
  std::string out = "0x";
  char buf[3];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof(buf), "%02x", bytes[i]);
    out += buf;
  }
  return out;
}

StatusOr<uint32_t> ReadVersion(ByteReader& reader) {
  PAGODA_ASSIGN_OR_RETURN(const uint8_t* magic, reader.ReadBytes(sizeof(kMagic)));
  if (std::memcmp(magic, kMagic, sizeof(kMagic)) != 0) {
    return DataLossError("bad magic " + Hex(magic, sizeof(kMagic)) + ", expected 'GGUF' (0x47475546)");
  }
  PAGODA_ASSIGN_OR_RETURN(uint32_t version, reader.ReadU32());
  if (version == 2 || version == 3) return version;
  if (version == 1) {
    return UnimplementedError("version 1 (32-bit counts) is not supported; convert the model to GGUF version 3");
  }
  // Big-endian files (allowed since v3) read as byte-swapped versions here.
  if (__builtin_bswap32(version) == 2 || __builtin_bswap32(version) == 3) {
    return UnimplementedError("big-endian files are not supported");
  }
  return UnimplementedError("version " + std::to_string(version) + " is not supported (expected 2 or 3)");
}

// Reads a count and rejects it when even the smallest entries could not fit
// in the bytes left, so a corrupt count cannot make us reserve gigabytes.
StatusOr<uint64_t> ReadCount(ByteReader& reader, std::string_view what, uint64_t min_entry_bytes) {
  PAGODA_ASSIGN_OR_RETURN(uint64_t count, reader.ReadU64());
  if (count > reader.remaining() / min_entry_bytes) {
    return DataLossError(std::string(what) + " " + std::to_string(count) + " exceeds what the " +
                         std::to_string(reader.remaining()) + " bytes after the header can hold");
  }
  return count;
}

StatusOr<uint64_t> Alignment(const Metadata& metadata) {
  const auto it = metadata.index.find(kAlignmentKey);
  if (it == metadata.index.end()) return kDefaultAlignment;
  const Value& value = metadata.entries[it->second].second;
  if (!IsIntegerType(value.type())) {
    return DataLossError(std::string(kAlignmentKey) + " has type " + value.TypeName() + ", expected an integer");
  }
  const auto alignment = value.AsUint();
  if (!alignment || !std::has_single_bit(*alignment)) {
    const std::string shown = alignment ? std::to_string(*alignment) : std::to_string(*value.AsInt());
    return DataLossError(std::string(kAlignmentKey) + " is " + shown + ", expected a power of two");
  }
  return *alignment;
}

StatusOr<std::vector<TensorInfo>> ReadTensorInfos(ByteReader& reader, uint64_t count,
                                                  std::unordered_map<std::string_view, size_t>& index) {
  std::vector<TensorInfo> tensors;
  tensors.reserve(count);
  index.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    PAGODA_ASSIGN_OR_RETURN(TensorInfo t, ReadTensorInfo(reader, i));
    tensors.push_back(std::move(t));
  }
  // Keys view the names inside `tensors`' buffer, which stays put when the
  // vector itself is moved, so the index is built once the vector is full.
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto [it, inserted] = index.emplace(tensors[i].name, i);
    if (!inserted) {
      return DataLossError("tensor '" + tensors[i].name + "' appears twice (tensor infos #" +
                           std::to_string(it->second) + " and #" + std::to_string(i) + ")");
    }
  }
  return tensors;
}

}  // namespace

StatusOr<ParsedGguf> ParseGguf(std::span<const uint8_t> file) {
  ByteReader reader(file);
  ParsedGguf parsed;
  auto version = ReadVersion(reader);
  if (!version.ok()) return Annotate(version.status(), "GGUF header");
  parsed.version = *version;

  auto tensor_count = ReadCount(reader, "tensor count", kMinTensorInfoBytes);
  if (!tensor_count.ok()) return Annotate(tensor_count.status(), "GGUF header");
  auto metadata_count = ReadCount(reader, "metadata entry count", kMinMetadataEntryBytes);
  if (!metadata_count.ok()) return Annotate(metadata_count.status(), "GGUF header");

  PAGODA_ASSIGN_OR_RETURN(parsed.metadata, ReadMetadata(reader, *metadata_count));
  PAGODA_ASSIGN_OR_RETURN(parsed.alignment, Alignment(parsed.metadata));
  PAGODA_ASSIGN_OR_RETURN(parsed.tensors, ReadTensorInfos(reader, *tensor_count, parsed.tensor_index));

  // The data section starts at the first aligned offset after the tensor infos.
  const uint64_t end_of_infos = reader.position();
  if (__builtin_add_overflow(end_of_infos, parsed.alignment - 1, &parsed.data_offset)) {
    return DataLossError("data section offset overflows with alignment " + std::to_string(parsed.alignment));
  }
  parsed.data_offset &= ~(parsed.alignment - 1);
  for (TensorInfo& t : parsed.tensors) {
    PAGODA_RETURN_IF_ERROR(PlaceTensor(t, file, parsed.data_offset, parsed.alignment));
  }
  return parsed;
}

}  // namespace pagoda::gguf
