#include "pagoda/formats/safetensors/header_parser.h"

#include <algorithm>
#include <limits>
#include <set>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "pagoda/formats/safetensors/quoted.h"

namespace pagoda::safetensors {
namespace {

using nlohmann::json;

// A tensor's entry before its range is checked against the others.
struct Entry {
  SafetensorsTensor tensor;
  uint64_t begin = 0;
  uint64_t end = 0;
};

// Parses the header text, refusing a key that appears twice at the top level
// (nlohmann would keep only the last; a tensor must not be described twice).
StatusOr<json> ParseJson(std::string_view text) {
  std::string duplicate;
  auto reject_duplicates = [&, seen = std::set<std::string>()](int depth, json::parse_event_t event,
                                                                json& parsed) mutable {
    if (event == json::parse_event_t::key && depth == 1 && duplicate.empty() &&
        !seen.insert(parsed.get<std::string>()).second) {
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  json header;
  try {
    header = json::parse(text.begin(), text.end(), reject_duplicates);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number too large for a double
    return DataLossError(std::string("header is not valid JSON: ") + e.what());
  }
  if (!duplicate.empty()) return DataLossError("header names " + Quoted(duplicate) + " twice");
  if (!header.is_object()) return DataLossError("header is not a JSON object");
  return header;
}

StatusOr<std::map<std::string, std::string>> ParseMetadata(const json& value) {
  if (!value.is_object()) return DataLossError("__metadata__ is not an object of strings");
  std::map<std::string, std::string> metadata;
  for (const auto& [key, v] : value.items()) {
    if (!v.is_string()) return DataLossError("__metadata__ " + Quoted(key) + " is not a string");
    metadata.emplace(key, v.get<std::string>());
  }
  return metadata;
}

// A non-negative JSON integer, or an error naming `what`.
StatusOr<uint64_t> ReadUnsigned(const json& value, const std::string& what) {
  if (!value.is_number_unsigned()) {
    return DataLossError(what + " is " + (value.is_number_integer() ? "negative" : "not an integer"));
  }
  return value.get<uint64_t>();
}

StatusOr<Dtype> ReadDtype(const json& entry, const std::string& where) {
  const auto it = entry.find("dtype");
  if (it == entry.end() || !it->is_string()) return DataLossError(where + ": dtype is missing or not a string");
  const auto dtype = ParseDtype(it->get<std::string>());
  if (!dtype) {
    return UnimplementedError(where + ": unknown dtype " + Quoted(it->get<std::string>()) +
                              " (known: " + KnownDtypeNames() + ")");
  }
  return *dtype;
}

// The shape's element count, refusing negative sizes and overflow.
StatusOr<uint64_t> ReadShape(const json& entry, const std::string& where, std::vector<int64_t>& shape) {
  const auto it = entry.find("shape");
  if (it == entry.end() || !it->is_array()) return DataLossError(where + ": shape is missing or not an array");
  uint64_t count = 1;
  for (size_t i = 0; i < it->size(); ++i) {
    const std::string what = where + ": shape[" + std::to_string(i) + "]";
    PAGODA_ASSIGN_OR_RETURN(const uint64_t dim, ReadUnsigned((*it)[i], what));
    constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());  // shapes are int64_t
    if (dim > kMax || __builtin_mul_overflow(count, dim, &count) || count > kMax) {
      return DataLossError(where + ": shape's element count overflows");
    }
    shape.push_back(static_cast<int64_t>(dim));
  }
  return count;
}

StatusOr<Entry> ReadEntry(const std::string& name, const json& value, uint64_t data_size) {
  const std::string where = "tensor " + Quoted(name);
  if (!value.is_object()) return DataLossError(where + " is not an object");
  for (const auto& [key, v] : value.items()) {
    if (key != "dtype" && key != "shape" && key != "data_offsets") {
      return DataLossError(where + ": unexpected field " + Quoted(key));
    }
  }
  Entry entry;
  entry.tensor.name = name;
  PAGODA_ASSIGN_OR_RETURN(entry.tensor.dtype, ReadDtype(value, where));
  PAGODA_ASSIGN_OR_RETURN(const uint64_t count, ReadShape(value, where, entry.tensor.shape));
  const auto offsets = value.find("data_offsets");
  if (offsets == value.end() || !offsets->is_array() || offsets->size() != 2) {
    return DataLossError(where + ": data_offsets is missing or not a [begin, end] pair");
  }
  PAGODA_ASSIGN_OR_RETURN(entry.begin, ReadUnsigned((*offsets)[0], where + ": data_offsets begin"));
  PAGODA_ASSIGN_OR_RETURN(entry.end, ReadUnsigned((*offsets)[1], where + ": data_offsets end"));
  const std::string range = "data_offsets [" + std::to_string(entry.begin) + ", " + std::to_string(entry.end) + ")";
  if (entry.end < entry.begin) return DataLossError(where + ": " + range + " ends before it begins");
  if (entry.end > data_size) {
    return DataLossError(where + ": " + range + " runs past the data section (" + std::to_string(data_size) +
                         " bytes)");
  }
  uint64_t nbytes = 0;
  if (__builtin_mul_overflow(count, DtypeSize(entry.tensor.dtype), &nbytes)) {
    return DataLossError(where + ": shape's byte size overflows");
  }
  if (nbytes != entry.end - entry.begin) {
    return DataLossError(where + ": " + range + " holds " + std::to_string(entry.end - entry.begin) +
                         " bytes, but " + std::to_string(count) + " elements of " +
                         std::string(DtypeName(entry.tensor.dtype)) + " need " + std::to_string(nbytes));
  }
  return entry;
}

// Sorted by range, each tensor must start where the previous one ended and
// the last must end where the file does, as the reference implementation requires.
Status CheckTiling(std::vector<Entry>& entries, uint64_t data_size) {
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::pair(a.begin, a.end) < std::pair(b.begin, b.end);
  });
  uint64_t covered = 0;
  const Entry* previous = nullptr;
  for (const Entry& e : entries) {
    if (e.begin < covered) {
      return DataLossError("tensor " + Quoted(e.tensor.name) + " overlaps tensor " + Quoted(previous->tensor.name) +
                           " (bytes " + std::to_string(e.begin) + " to " + std::to_string(covered) + ")");
    }
    if (e.begin > covered) {
      return DataLossError("bytes " + std::to_string(covered) + " to " + std::to_string(e.begin) +
                           " of the data section belong to no tensor (before tensor " + Quoted(e.tensor.name) + ")");
    }
    covered = e.end;
    previous = &e;
  }
  if (covered != data_size) {
    return DataLossError("the data section has " + std::to_string(data_size) + " bytes but its tensors cover " +
                         std::to_string(covered));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<ParsedSafetensors> ParseSafetensors(std::span<const uint8_t> bytes) {
  if (bytes.size() < 8) {
    return DataLossError("file of " + std::to_string(bytes.size()) + " bytes is too short for the header length");
  }
  uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | bytes[static_cast<size_t>(i)];
  if (header_size > kMaxHeaderBytes) {
    return DataLossError("header length " + std::to_string(header_size) + " exceeds the limit of " +
                         std::to_string(kMaxHeaderBytes) + " bytes");
  }
  if (header_size > bytes.size() - 8) {
    return DataLossError("header length " + std::to_string(header_size) + " runs past the end of the file (" +
                         std::to_string(bytes.size()) + " bytes)");
  }
  ParsedSafetensors parsed;
  parsed.data_offset = 8 + header_size;
  const uint64_t data_size = bytes.size() - parsed.data_offset;
  const auto* text = reinterpret_cast<const char*>(bytes.data() + 8);
  PAGODA_ASSIGN_OR_RETURN(const json header, ParseJson(std::string_view(text, header_size)));
  std::vector<Entry> entries;
  for (const auto& [key, value] : header.items()) {
    if (key == "__metadata__") {
      PAGODA_ASSIGN_OR_RETURN(parsed.metadata, ParseMetadata(value));
      continue;
    }
    PAGODA_ASSIGN_OR_RETURN(Entry entry, ReadEntry(key, value, data_size));
    entries.push_back(std::move(entry));
  }
  PAGODA_RETURN_IF_ERROR(CheckTiling(entries, data_size));
  const auto data = bytes.subspan(parsed.data_offset);
  for (Entry& e : entries) {
    e.tensor.data = data.subspan(e.begin, e.end - e.begin);
    parsed.tensors.push_back(std::move(e.tensor));
  }
  return parsed;
}

}  // namespace pagoda::safetensors
