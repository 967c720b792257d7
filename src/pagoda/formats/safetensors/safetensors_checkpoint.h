// A Hugging Face model directory's weights: a single model.safetensors, or
// the shards that model.safetensors.index.json lists (its "weight_map":
// tensor name -> shard file). As transformers does, a model.safetensors
// present takes precedence over an index.
//
// Each shard is opened (mapped and validated) once. Every tensor of the
// weight map must be in the shard it names, every tensor of a shard in the
// weight map, and no tensor in two shards; errors name the file and tensor.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/formats/safetensors/safetensors_file.h"

namespace pagoda::safetensors {

inline constexpr std::string_view kSingleFileName = "model.safetensors";
inline constexpr std::string_view kIndexFileName = "model.safetensors.index.json";

class SafetensorsCheckpoint {
 public:
  static StatusOr<std::unique_ptr<SafetensorsCheckpoint>> Open(const std::string& directory);

  SafetensorsCheckpoint(const SafetensorsCheckpoint&) = delete;
  SafetensorsCheckpoint& operator=(const SafetensorsCheckpoint&) = delete;

  // Null when no file holds `name`. The tensor's bytes view its shard's mapping.
  const SafetensorsTensor* FindTensor(std::string_view name) const;
  // Every tensor by name.
  const std::map<std::string, const SafetensorsTensor*, std::less<>>& tensors() const { return tensors_; }
  // The single file, or the shards in the order of their first tensor by name.
  const std::vector<std::unique_ptr<SafetensorsFile>>& files() const { return files_; }

 private:
  SafetensorsCheckpoint() = default;
  Status OpenSingle(const std::string& path);
  Status OpenSharded(const std::string& directory, const std::string& index_path);
  Status AddShardTensors(const SafetensorsFile& shard, const std::string& shard_name,
                         std::map<std::string, std::string, std::less<>>& shard_of);

  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  std::map<std::string, const SafetensorsTensor*, std::less<>> tensors_;
};

}  // namespace pagoda::safetensors
