#include "pagoda/formats/safetensors/safetensors_checkpoint.h"

#include <filesystem>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "pagoda/formats/mapped_file/mapped_file.h"
#include "pagoda/formats/safetensors/quoted.h"

namespace pagoda::safetensors {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// The index's weight map: tensor name -> shard file name. A shard must be a
// plain file name in the directory, so an index cannot point elsewhere.
StatusOr<std::map<std::string, std::string>> ReadWeightMap(const std::string& index_path) {
  PAGODA_ASSIGN_OR_RETURN(auto mapping, formats::MappedFile::Open(index_path));
  const auto bytes = mapping->bytes();
  json index;
  try {
    index = json::parse(bytes.begin(), bytes.end());
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number too large for a double
    return DataLossError(Quoted(index_path) + ": not valid JSON: " + e.what());
  }
  const auto weight_map = index.is_object() ? index.find("weight_map") : index.end();
  if (weight_map == index.end() || !weight_map->is_object() || weight_map->empty()) {
    return DataLossError(Quoted(index_path) + ": no \"weight_map\" object of tensor names to shard files");
  }
  std::map<std::string, std::string> result;
  for (const auto& [tensor, shard] : weight_map->items()) {
    const std::string where = Quoted(index_path) + ": weight_map entry for tensor " + Quoted(tensor);
    if (!shard.is_string()) return DataLossError(where + " is not a file name");
    const std::string name = shard.get<std::string>();
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
      return DataLossError(where + " names " + Quoted(name) + ", not a file in the checkpoint's directory");
    }
    result.emplace(tensor, name);
  }
  return result;
}

}  // namespace

StatusOr<std::unique_ptr<SafetensorsCheckpoint>> SafetensorsCheckpoint::Open(const std::string& directory) {
  std::unique_ptr<SafetensorsCheckpoint> checkpoint(new SafetensorsCheckpoint());
  const std::string single = (fs::path(directory) / kSingleFileName).string();
  const std::string index = (fs::path(directory) / kIndexFileName).string();
  std::error_code error;
  if (fs::exists(single, error)) {
    PAGODA_RETURN_IF_ERROR(checkpoint->OpenSingle(single));
  } else if (fs::exists(index, error)) {
    PAGODA_RETURN_IF_ERROR(checkpoint->OpenSharded(directory, index));
  } else {
    return NotFoundError(Quoted(directory) + " holds neither " + std::string(kSingleFileName) + " nor " +
                         std::string(kIndexFileName));
  }
  return checkpoint;
}

Status SafetensorsCheckpoint::OpenSingle(const std::string& path) {
  PAGODA_ASSIGN_OR_RETURN(auto file, SafetensorsFile::Open(path));
  for (const SafetensorsTensor& t : file->tensors()) tensors_.emplace(t.name, &t);
  files_.push_back(std::move(file));
  return Status::Ok();
}

Status SafetensorsCheckpoint::OpenSharded(const std::string& directory, const std::string& index_path) {
  PAGODA_ASSIGN_OR_RETURN(const auto weight_map, ReadWeightMap(index_path));
  std::map<std::string, std::string, std::less<>> shard_of;  // tensor -> the shard that holds it
  std::set<std::string> opened;
  for (const auto& [tensor, shard] : weight_map) {
    if (!opened.insert(shard).second) continue;
    PAGODA_ASSIGN_OR_RETURN(auto file, SafetensorsFile::Open((fs::path(directory) / shard).string()));
    PAGODA_RETURN_IF_ERROR(AddShardTensors(*file, shard, shard_of));
    files_.push_back(std::move(file));
  }
  for (const auto& [tensor, shard] : weight_map) {
    const auto found = shard_of.find(tensor);
    if (found == shard_of.end() || found->second != shard) {
      return NotFoundError(Quoted(index_path) + ": tensor " + Quoted(tensor) + " is not in shard " + Quoted(shard) +
                           (found == shard_of.end() ? "" : " (it is in " + Quoted(found->second) + ")"));
    }
  }
  for (const auto& [tensor, shard] : shard_of) {
    if (!weight_map.contains(tensor)) {
      return DataLossError(Quoted(index_path) + ": tensor " + Quoted(tensor) + " of shard " + Quoted(shard) +
                           " is not in the weight map");
    }
  }
  return Status::Ok();
}

Status SafetensorsCheckpoint::AddShardTensors(const SafetensorsFile& shard, const std::string& shard_name,
                                              std::map<std::string, std::string, std::less<>>& shard_of) {
  for (const SafetensorsTensor& t : shard.tensors()) {
    const auto [it, added] = shard_of.emplace(t.name, shard_name);
    if (!added) {
      return DataLossError("tensor " + Quoted(t.name) + " is in two shards: " + Quoted(it->second) + " and " +
                           Quoted(shard_name));
    }
    tensors_.emplace(t.name, &t);
  }
  return Status::Ok();
}

const SafetensorsTensor* SafetensorsCheckpoint::FindTensor(std::string_view name) const {
  const auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : it->second;
}

}  // namespace pagoda::safetensors
