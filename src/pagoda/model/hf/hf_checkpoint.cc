#include "pagoda/model/hf/hf_checkpoint.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "pagoda/base/check.h"
#include "pagoda/formats/mapped_file/mapped_file.h"
#include "pagoda/formats/safetensors/safetensors_checkpoint.h"
#include "pagoda/model/hf/config_reader.h"
#include "pagoda/model/hf/config_translation.h"
#include "pagoda/model/hf/dummy_weights.h"
#include "pagoda/model/hf/quantized_weights.h"
#include "pagoda/model/hf/tensor_names.h"
#include "pagoda/model/hf/weight_conversion.h"

namespace pagoda::hf {
namespace {

namespace fs = std::filesystem;

// What the GGUF view's tensors point into: the mapped shards, and the
// tensors made at load (converted weights, F32 norms, computed RoPE factors).
struct Storage {
  std::unique_ptr<safetensors::SafetensorsCheckpoint> checkpoint;
  std::deque<std::vector<uint8_t>> buffers;

  const uint8_t* Keep(std::vector<uint8_t> bytes) { return buffers.emplace_back(std::move(bytes)).data(); }
};

std::optional<DType> FloatType(safetensors::Dtype t) {
  switch (t) {
    case safetensors::Dtype::kF32: return DType::kF32;
    case safetensors::Dtype::kF16: return DType::kF16;
    case safetensors::Dtype::kBF16: return DType::kBF16;
    default: return std::nullopt;
  }
}

std::vector<uint8_t> FloatBytes(const std::vector<float>& v) {
  std::vector<uint8_t> bytes(v.size() * sizeof(float));
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

// The checkpoint's own dtype as config.json records it ("dtype" since
// transformers 5, "torch_dtype" before), else the embedding table's.
DType StoredDtype(const nlohmann::json& config, DType embedding) {
  const ConfigReader c(config, "config.json");
  const std::string key = c.Has("dtype") ? "dtype" : "torch_dtype";
  const StatusOr<std::string> name = c.String(key, "");
  if (name.ok() && *name == "bfloat16") return DType::kBF16;
  if (name.ok() && *name == "float16") return DType::kF16;
  if (name.ok() && *name == "float32") return DType::kF32;
  return embedding;
}

DType ResolveWeightDtype(WeightDtype asked, DType stored) {
  switch (asked) {
    case WeightDtype::kBFloat16: return DType::kBF16;
    case WeightDtype::kFloat16: return DType::kF16;
    case WeightDtype::kFloat32: return DType::kF32;
    case WeightDtype::kAuto: return stored == DType::kF32 ? DType::kBF16 : stored;
  }
  return stored;
}

// Tensors a checkpoint may hold that no architecture reads.
bool IsUnused(std::string_view name, bool tied) {
  return name.ends_with("rotary_emb.inv_freq") || (tied && name == "lm_head.weight");
}

class ViewBuilder {
 public:
  // fp8_at_load: the linear layers of the blocks are quantized to FP8
  // (--quantization fp8 of a float checkpoint); the embedding, the output
  // head and MoE routers keep weight_dtype, as vLLM leaves them unquantized.
  ViewBuilder(const ConfigTranslation& t, DType weight_dtype, bool fp8_at_load, Storage& storage)
      : t_(t), weight_dtype_(weight_dtype), fp8_at_load_(fp8_at_load), storage_(storage) {}

  Status Add(const safetensors::SafetensorsTensor& tensor, const std::string& gguf_name) {
    const std::optional<DType> type = FloatType(tensor.dtype);
    if (!type) {
      return UnimplementedError(fmt::format("checkpoint tensor '{}' has dtype {}; only F32, F16 and BF16 are read",
                                            tensor.name, safetensors::DtypeName(tensor.dtype)));
    }
    gguf::TensorInfo info;
    info.name = gguf_name;
    info.shape.assign(tensor.shape.rbegin(), tensor.shape.rend());  // GGML order: innermost first
    const bool vector = tensor.shape.size() == 1 || gguf_name.ends_with("ffn_gate_inp_shexp.weight");
    if (vector) {
      // GGUF keeps norms, biases and one-row gates as F32 vectors.
      const float add = t_.family == TensorFamily::kGemma && gguf_name.ends_with("norm.weight") ? 1.0f : 0.0f;
      info.dtype = DType::kF32;
      info.shape = {tensor.num_elements()};
      info.data = storage_.Keep(FloatBytes(ToF32(tensor.data, *type, add)));
    } else if (tensor.shape.size() == 2 && fp8_at_load_ && gguf_name.starts_with("blk.") &&
               gguf_name.find(".ffn_gate_inp") == std::string::npos) {
      const std::vector<float> w = ToF32(tensor.data, *type, 0.0f);
      AddRepacked(gguf_name, QuantizeFp8AtLoad(w.data(), tensor.shape[0], tensor.shape[1]));
      formats::ReleasePages(tensor.data);
      return Status::Ok();
    } else if (tensor.shape.size() == 2) {
      info.dtype = weight_dtype_;
      if (*type == weight_dtype_) {
        info.data = tensor.data.data();
      } else {
        info.data = storage_.Keep(ConvertFloats(tensor.data, *type, weight_dtype_));
        formats::ReleasePages(tensor.data);  // read once, now held converted
        ++converted_;
      }
    } else {
      return InvalidArgumentError(
          fmt::format("checkpoint tensor '{}' has {} dimensions; expected a matrix or a vector", tensor.name,
                      tensor.shape.size()));
    }
    info.nbytes = static_cast<uint64_t>(info.num_elements()) * (info.dtype == DType::kF32 ? 4 : 2);
    tensors_.push_back(std::move(info));
    return Status::Ok();
  }

  // "X.weight", and "X.input_order" (I32 [cols]) for an act-order layer.
  void AddRepacked(const std::string& gguf_name, RepackedMatrix m) {
    gguf::TensorInfo info;
    info.name = gguf_name;
    info.dtype = m.dtype;
    info.shape = {m.cols, m.rows};
    info.nbytes = m.bytes.size();
    info.data = storage_.Keep(std::move(m.bytes));
    tensors_.push_back(std::move(info));
    ++repacked_;
    if (m.input_order.empty()) return;
    gguf::TensorInfo order;
    order.name = gguf_name.substr(0, gguf_name.size() - std::string_view(".weight").size()) + ".input_order";
    order.dtype = DType::kI32;
    order.shape = {m.cols};
    order.nbytes = m.input_order.size() * sizeof(int32_t);
    std::vector<uint8_t> bytes(order.nbytes);
    std::memcpy(bytes.data(), m.input_order.data(), order.nbytes);
    order.data = storage_.Keep(std::move(bytes));
    tensors_.push_back(std::move(order));
    ++reordered_;
  }

  void AddComputed(const std::string& name, const std::vector<float>& values) {
    gguf::TensorInfo info;
    info.name = name;
    info.dtype = DType::kF32;
    info.shape = {static_cast<int64_t>(values.size())};
    info.nbytes = values.size() * sizeof(float);
    info.data = storage_.Keep(FloatBytes(values));
    tensors_.push_back(std::move(info));
  }

  std::vector<gguf::TensorInfo>& tensors() { return tensors_; }
  int converted() const { return converted_; }
  int repacked() const { return repacked_; }
  int reordered() const { return reordered_; }

 private:
  const ConfigTranslation& t_;
  DType weight_dtype_;
  bool fp8_at_load_;
  Storage& storage_;
  std::vector<gguf::TensorInfo> tensors_;
  int converted_ = 0;
  int repacked_ = 0;
  int reordered_ = 0;
};

// The quantization_config's scheme, checked against --quantization.
StatusOr<std::optional<QuantScheme>> ReadScheme(const nlohmann::json& config, const std::string& asked) {
  const auto it = config.find("quantization_config");
  if (it == config.end() || it->is_null()) {
    if (asked == "fp8") return std::optional<QuantScheme>(QuantScheme{.format = QuantFormat::kFp8, .method = "fp8", .bits = 8, .at_load = true});
    if (!asked.empty()) {
      return InvalidArgumentError("--quantization " + asked + ": the checkpoint is not quantized (config.json has no "
                                  "quantization_config), and only fp8 quantizes a float checkpoint at load");
    }
    return std::optional<QuantScheme>();
  }
  PAGODA_ASSIGN_OR_RETURN(QuantScheme scheme, ReadQuantScheme(*it));
  if (!asked.empty() && asked != scheme.method) {
    return InvalidArgumentError("--quantization " + asked + " does not match the checkpoint's quant_method '" +
                                scheme.method + "'");
  }
  return std::optional<QuantScheme>(scheme);
}

// Repacks every quantized linear layer into the view and returns the
// checkpoint tensors it used.
StatusOr<std::set<std::string>> AddQuantizedLayers(const safetensors::SafetensorsCheckpoint& ckpt,
                                                   const QuantScheme& scheme, const ConfigTranslation& t,
                                                   ViewBuilder& view) {
  std::set<std::string> used;
  const std::string marker = QuantMarker(scheme);
  // FP8 and int-quantized layers keep ".weight" for the quantized values: only
  // a layer with a scale is quantized.
  for (const auto& [name, tensor] : ckpt.tensors()) {
    if (!name.ends_with(marker)) continue;
    const std::string prefix = name.substr(0, name.size() - marker.size());
    const std::optional<std::string> gguf_name = GgufTensorName(prefix + ".weight", t.family);
    if (!gguf_name) return UnimplementedError(fmt::format("checkpoint tensor '{}' is not one {} reads", name, t.hf_architecture));
    PAGODA_ASSIGN_OR_RETURN(RepackedMatrix m, RepackLinear(ckpt, prefix, scheme));
    view.AddRepacked(*gguf_name, std::move(m));
    for (std::string& component : QuantizedComponents(ckpt, prefix, scheme)) {
      formats::ReleasePages(ckpt.FindTensor(component)->data);  // copied into the repacked blocks
      used.insert(std::move(component));
    }
  }
  return used;
}

// --load-format dummy: the config's tensors with random values, through the
// same view as a checkpoint's. Matrices are made in the weight dtype and
// vectors in F32, so nothing is converted.
StatusOr<HfCheckpoint> OpenWithRandomWeights(const nlohmann::json& config, ConfigTranslation& t,
                                             const HfOpenOptions& options) {
  if (!options.quantization.empty()) {
    return InvalidArgumentError("--quantization " + options.quantization +
                                " cannot be used with --load-format dummy, whose weights are random floats");
  }
  if (config.contains("quantization_config") && !config["quantization_config"].is_null()) {
    return UnimplementedError("--load-format dummy makes float weights; config.json names a quantization_config");
  }
  PAGODA_ASSIGN_OR_RETURN(const std::vector<DummyTensorShape> shapes, DummyTensorShapes(config));
  auto storage = std::make_shared<Storage>();
  const DType weight_dtype = ResolveWeightDtype(options.dtype, StoredDtype(config, DType::kBF16));
  // Made on every core (8 billion values take one thread tens of seconds):
  // each tensor's values depend on its name alone, so the order of making
  // changes nothing. Then added in order.
  std::vector<std::vector<uint8_t>*> bytes;
  for (size_t i = 0; i < shapes.size(); ++i) bytes.push_back(&storage->buffers.emplace_back());
  std::vector<safetensors::SafetensorsTensor> made(shapes.size());
  std::atomic<size_t> next{0};
  auto make = [&] {
    for (size_t i = next++; i < shapes.size(); i = next++) {
      made[i] = DummyTensor(shapes[i], shapes[i].shape.size() == 2 ? weight_dtype : DType::kF32, *bytes[i]);
    }
  };
  std::vector<std::thread> makers;
  for (unsigned i = 1; i < std::max(1u, std::thread::hardware_concurrency()); ++i) makers.emplace_back(make);
  make();
  for (std::thread& maker : makers) maker.join();
  ViewBuilder view(t, weight_dtype, /*fp8_at_load=*/false, *storage);
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::optional<std::string> gguf_name = GgufTensorName(shapes[i].name, t.family);
    PAGODA_CHECK_MSG(gguf_name.has_value(), "a dummy tensor without a GGUF name");
    PAGODA_RETURN_IF_ERROR(view.Add(made[i], *gguf_name));
  }
  for (const auto& [gguf_name, values] : t.computed_tensors) view.AddComputed(gguf_name, values);
  HfCheckpoint result;
  result.description = fmt::format("{} as '{}', {} matrices of random values (--load-format dummy)",
                                   t.hf_architecture, t.gguf_architecture, DTypeName(weight_dtype));
  PAGODA_ASSIGN_OR_RETURN(result.file,
                          gguf::GgufFile::FromTables(std::move(t.metadata), std::move(view.tensors()), storage));
  return result;
}

}  // namespace

StatusOr<WeightDtype> ParseWeightDtype(std::string_view name) {
  if (name == "auto") return WeightDtype::kAuto;
  if (name == "bfloat16") return WeightDtype::kBFloat16;
  if (name == "float16" || name == "half") return WeightDtype::kFloat16;
  if (name == "float32" || name == "float") return WeightDtype::kFloat32;
  return InvalidArgumentError(
      fmt::format("--dtype '{}' is not one of auto, bfloat16, float16, half, float32, float", name));
}

bool IsHfDirectory(const std::string& path) {
  std::error_code error;
  return fs::is_directory(path, error) && fs::is_regular_file(fs::path(path) / "config.json", error);
}

StatusOr<HfCheckpoint> OpenHfCheckpoint(const std::string& directory, const HfOpenOptions& options) {
  const std::string config_path = (fs::path(directory) / "config.json").string();
  PAGODA_ASSIGN_OR_RETURN(const nlohmann::json config, ConfigReader::ParseFile(config_path));
  const std::string name = fs::path(directory).lexically_normal().filename().string();
  StatusOr<ConfigTranslation> translated = TranslateConfig(config, name);
  if (!translated.ok()) {
    return Status(translated.status().code(), "'" + config_path + "': " + translated.status().message());
  }
  ConfigTranslation& t = *translated;
  if (options.random_weights) return OpenWithRandomWeights(config, t, options);

  auto storage = std::make_shared<Storage>();
  PAGODA_ASSIGN_OR_RETURN(storage->checkpoint, safetensors::SafetensorsCheckpoint::Open(directory));
  const safetensors::SafetensorsTensor* embedding = storage->checkpoint->FindTensor("model.embed_tokens.weight");
  if (embedding == nullptr) return NotFoundError("checkpoint tensor 'model.embed_tokens.weight' is missing");
  const DType stored = StoredDtype(config, FloatType(embedding->dtype).value_or(DType::kBF16));
  const DType weight_dtype = ResolveWeightDtype(options.dtype, stored);

  PAGODA_ASSIGN_OR_RETURN(const std::optional<QuantScheme> scheme, ReadScheme(config, options.quantization));
  ViewBuilder view(t, weight_dtype, scheme && scheme->at_load, *storage);
  std::set<std::string> quantized;
  if (scheme && !scheme->at_load) {
    PAGODA_ASSIGN_OR_RETURN(quantized, AddQuantizedLayers(*storage->checkpoint, *scheme, t, view));
  }
  for (const auto& [hf_name, tensor] : storage->checkpoint->tensors()) {
    if (IsUnused(hf_name, t.tied_embeddings) || quantized.contains(hf_name)) continue;
    const std::optional<std::string> gguf_name = GgufTensorName(hf_name, t.family);
    if (!gguf_name) {
      return UnimplementedError(fmt::format("checkpoint tensor '{}' is not one {} reads", hf_name, t.hf_architecture));
    }
    PAGODA_RETURN_IF_ERROR(view.Add(*tensor, *gguf_name));
  }
  if (!t.tied_embeddings && storage->checkpoint->FindTensor("lm_head.weight") == nullptr) {
    return NotFoundError("checkpoint tensor 'lm_head.weight' is missing (config.json does not tie it to the embeddings)");
  }
  for (const auto& [gguf_name, values] : t.computed_tensors) view.AddComputed(gguf_name, values);

  HfCheckpoint result;
  result.description = fmt::format("{} as '{}', {} matrices", t.hf_architecture, t.gguf_architecture, DTypeName(weight_dtype));
  result.description += view.converted() == 0
                            ? " (as stored)"
                            : fmt::format(" ({} converted at load from {})", view.converted(), DTypeName(stored));
  if (scheme) {
    result.description += scheme->at_load ? fmt::format(", {} layers quantized to FP8 at load (--quantization fp8) "
                                                        "and held as {}", view.repacked(), RepackedLayout(*scheme))
                                          : fmt::format(", {} {} {}-bit layers repacked into {} at load", view.repacked(),
                                                        scheme->method, scheme->bits, RepackedLayout(*scheme));
    if (scheme->static_activations) {
      result.description += " (static input scales not applied: activations are quantized per 32 elements at run time)";
    }
    if (view.reordered() > 0) {
      result.description += fmt::format(" ({} in act-order: inputs gathered into group order)", view.reordered());
    }
  }
  PAGODA_ASSIGN_OR_RETURN(result.file,
                          gguf::GgufFile::FromTables(std::move(t.metadata), std::move(view.tensors()), storage));
  return result;
}

}  // namespace pagoda::hf
