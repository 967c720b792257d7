#include "pagoda/formats/gguf/metadata_reader.h"

#include <string>

namespace pagoda::gguf {
namespace {

// Fewest bytes one array element of the given type takes in the file; bounds
// array lengths by the bytes left before anything is allocated.
uint64_t MinEncodedSize(ValueType type) {
  switch (type) {
    case ValueType::kString: return 8;      // length
    case ValueType::kArray: return 4 + 8;   // element type, length
    default: return FixedValueSize(type);
  }
}

Status CheckBools(const uint8_t* bytes, uint64_t count, uint64_t at) {
  for (uint64_t i = 0; i < count; ++i) {
    if (bytes[i] > 1) {
      return DataLossError("bool value " + std::to_string(bytes[i]) + " at offset " + std::to_string(at + i) +
                           " is neither 0 nor 1");
    }
  }
  return Status::Ok();
}

StatusOr<Value> ReadArray(ByteReader& reader, int depth) {
  if (depth > kMaxArrayDepth) {
    return DataLossError("arrays nested more than " + std::to_string(kMaxArrayDepth) + " deep at offset " +
                         std::to_string(reader.position()));
  }
  const uint64_t type_at = reader.position();
  PAGODA_ASSIGN_OR_RETURN(uint32_t type_id, reader.ReadU32());
  if (!IsValidValueType(type_id)) {
    return DataLossError("unknown array element type " + std::to_string(type_id) + " at offset " +
                         std::to_string(type_at));
  }
  const auto element = static_cast<ValueType>(type_id);
  const uint64_t count_at = reader.position();
  PAGODA_ASSIGN_OR_RETURN(uint64_t count, reader.ReadU64());
  if (count > reader.remaining() / MinEncodedSize(element)) {
    return DataLossError("array length " + std::to_string(count) + " at offset " + std::to_string(count_at) +
                         " exceeds what the " + std::to_string(reader.remaining()) + " remaining bytes can hold");
  }
  switch (element) {
    case ValueType::kString: {
      std::vector<std::string_view> strings;
      strings.reserve(count);
      for (uint64_t i = 0; i < count; ++i) {
        PAGODA_ASSIGN_OR_RETURN(std::string_view s, reader.ReadString());
        strings.push_back(s);
      }
      return Value::StringArray(std::move(strings));
    }
    case ValueType::kArray: {
      std::vector<Value> arrays;
      arrays.reserve(count);
      for (uint64_t i = 0; i < count; ++i) {
        PAGODA_ASSIGN_OR_RETURN(Value inner, ReadArray(reader, depth + 1));
        arrays.push_back(std::move(inner));
      }
      return Value::ArrayOfArrays(std::move(arrays));
    }
    default: {
      const uint64_t at = reader.position();
      PAGODA_ASSIGN_OR_RETURN(const uint8_t* bytes, reader.ReadBytes(count * FixedValueSize(element)));
      if (element == ValueType::kBool) PAGODA_RETURN_IF_ERROR(CheckBools(bytes, count, at));
      return Value::FixedArray(element, bytes, count);
    }
  }
}

StatusOr<Value> ReadValue(ByteReader& reader, ValueType type) {
  switch (type) {
    case ValueType::kString: {
      PAGODA_ASSIGN_OR_RETURN(std::string_view s, reader.ReadString());
      return Value::String(s);
    }
    case ValueType::kArray: return ReadArray(reader, 1);
    default: {
      const uint64_t at = reader.position();
      PAGODA_ASSIGN_OR_RETURN(const uint8_t* bytes, reader.ReadBytes(FixedValueSize(type)));
      if (type == ValueType::kBool) PAGODA_RETURN_IF_ERROR(CheckBools(bytes, 1, at));
      return Value::FromFixedBytes(type, bytes);
    }
  }
}

StatusOr<Value> ReadTypedValue(ByteReader& reader) {
  const uint64_t at = reader.position();
  PAGODA_ASSIGN_OR_RETURN(uint32_t type_id, reader.ReadU32());
  if (!IsValidValueType(type_id)) {
    return DataLossError("unknown value type " + std::to_string(type_id) + " at offset " + std::to_string(at));
  }
  return ReadValue(reader, static_cast<ValueType>(type_id));
}

}  // namespace

StatusOr<Metadata> ReadMetadata(ByteReader& reader, uint64_t count) {
  Metadata metadata;
  metadata.entries.reserve(count);
  metadata.index.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    auto key = reader.ReadString();
    if (!key.ok()) return Annotate(key.status(), "metadata entry #" + std::to_string(i) + " key");
    const std::string context = "metadata key '" + std::string(*key) + "'";
    auto value = ReadTypedValue(reader);
    if (!value.ok()) return Annotate(value.status(), context);
    const auto [it, inserted] = metadata.index.emplace(*key, metadata.entries.size());
    if (!inserted) {
      return DataLossError(context + " appears twice (entries #" + std::to_string(it->second) + " and #" +
                           std::to_string(i) + ")");
    }
    metadata.entries.emplace_back(std::string(*key), std::move(value).value());
  }
  return metadata;
}

}  // namespace pagoda::gguf
