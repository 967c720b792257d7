#include "pagoda/quantize/requantize.h"

#include <cstring>
#include <ostream>
#include <vector>

#include "pagoda/formats/gguf/gguf_file.h"
#include "pagoda/formats/gguf/gguf_writer.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/quantize/type_mix.h"
#include "pagoda/quantize/weight_quantizer.h"

namespace pagoda::quantize {
namespace {

// llama.cpp's GGML_QNT_VERSION: the block layouts this file's types use.
constexpr uint32_t kQuantizationVersion = 2;

int64_t MetadataInt(const gguf::GgufFile& file, const std::string& key) {
  const StatusOr<int64_t> v = file.GetInt(key);
  return v.ok() ? v.value() : 0;
}

ModelShape ShapeOf(const gguf::GgufFile& file) {
  ModelShape shape;
  const StatusOr<std::string> arch = file.GetString("general.architecture");
  shape.architecture = arch.ok() ? arch.value() : "";
  const std::string p = shape.architecture + ".";
  shape.num_layers = MetadataInt(file, p + "block_count");
  shape.num_heads = MetadataInt(file, p + "attention.head_count");
  shape.num_kv_heads = MetadataInt(file, p + "attention.head_count_kv");
  if (shape.num_kv_heads == 0) shape.num_kv_heads = shape.num_heads;
  shape.num_experts = MetadataInt(file, p + "expert_count");
  return shape;
}

gguf::Value Uint32Value(uint32_t v) {
  uint8_t bytes[4];
  std::memcpy(bytes, &v, 4);
  return gguf::Value::FromFixedBytes(gguf::ValueType::kUint32, bytes);
}

// The input's metadata with the file type and quantization version set.
std::vector<std::pair<std::string, gguf::Value>> OutputMetadata(const gguf::GgufFile& file, FileType type) {
  std::vector<std::pair<std::string, gguf::Value>> out;
  for (const auto& [key, value] : file.metadata()) {
    if (key != "general.file_type" && key != "general.quantization_version") out.emplace_back(key, value);
  }
  out.emplace_back("general.quantization_version", Uint32Value(kQuantizationVersion));
  out.emplace_back("general.file_type", Uint32Value(static_cast<uint32_t>(type)));
  return out;
}

// The tensor's data in `type`: copied when the type is unchanged, otherwise
// dequantized to f32 row by row and quantized.
void Convert(const gguf::TensorInfo& t, DType type, std::vector<uint8_t>& out) {
  if (type == t.dtype) {
    out.assign(t.data, t.data + t.nbytes);
    return;
  }
  const int64_t cols = t.shape[0];
  const int64_t rows = t.num_elements() / cols;
  std::vector<float> f32(static_cast<size_t>(t.num_elements()));
  const int64_t in_row_bytes = DTypeRowBytes(t.dtype, cols);
  for (int64_t r = 0; r < rows; ++r) {
    kernels::reference::DequantizeRow(t.dtype, t.data + r * in_row_bytes, f32.data() + r * cols, cols);
  }
  out.resize(static_cast<size_t>(rows * DTypeRowBytes(type, cols)));
  QuantizeWeightRows(type, f32.data(), rows, cols, out.data());
}

Status CheckConvertible(const gguf::TensorInfo& t, DType type, const RequantizeOptions& options) {
  if (type == t.dtype) return Status::Ok();
  if (!CanQuantizeWeights(type)) {
    return UnimplementedError("quantize: tensor " + t.name + " would be " + std::string(DTypeName(type)) +
                              ", which Pagoda cannot quantize to");
  }
  if (DTypeBlockElems(t.dtype) > 1 && !options.allow_requantize) {
    return InvalidArgumentError("quantize: tensor " + t.name + " is already quantized (" +
                                std::string(DTypeName(t.dtype)) +
                                "); pass --allow-requantize to dequantize and quantize it again");
  }
  return Status::Ok();
}

}  // namespace

Status Requantize(const std::string& input, const std::string& output, const RequantizeOptions& options,
                  std::ostream& log) {
  PAGODA_ASSIGN_OR_RETURN(auto file, gguf::GgufFile::Open(input));
  // Visited and written in llama-quantize's order, so that the files match.
  std::vector<gguf::TensorInfo> tensors;
  for (size_t i : QuantizationOrder(file->tensors())) tensors.push_back(file->tensors()[i]);
  TypeMix mix(options.file_type, ShapeOf(*file), tensors);
  std::vector<gguf::TensorToWrite> table;
  for (const gguf::TensorInfo& t : tensors) {
    const DType type = mix.Next(t);
    PAGODA_RETURN_IF_ERROR(CheckConvertible(t, type, options));
    table.push_back({t.name, type, t.ggml_shape()});  // the shape llama-quantize writes
  }
  uint64_t bytes_in = 0, bytes_out = 0;
  auto data = [&](size_t i, std::vector<uint8_t>& bytes) -> Status {
    Convert(tensors[i], table[i].dtype, bytes);
    log << tensors[i].name << ": " << DTypeName(tensors[i].dtype) << " -> " << DTypeName(table[i].dtype) << "\n";
    bytes_in += tensors[i].nbytes;
    bytes_out += bytes.size();
    return Status::Ok();
  };
  PAGODA_RETURN_IF_ERROR(gguf::WriteGguf(output, OutputMetadata(*file, options.file_type), table, data));
  log << "quantize: " << FileTypeName(options.file_type) << ", " << tensors.size() << " tensors, " << bytes_in
      << " -> " << bytes_out << " tensor bytes\n";
  return Status::Ok();
}

}  // namespace pagoda::quantize
