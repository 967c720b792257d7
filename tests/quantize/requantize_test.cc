// Requantize on a small synthetic llama file: the output keeps the
// metadata (with the new file type), takes TypeMix's types, and holds
// exactly what the weight quantizer writes for the input's floats.
#include "pagoda/quantize/requantize.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "pagoda/formats/gguf/gguf_file.h"
#include "pagoda/formats/gguf/gguf_writer.h"
#include "pagoda/quantize/type_mix.h"
#include "pagoda/quantize/weight_quantizer.h"

namespace pagoda::quantize {
namespace {

gguf::Value U32(uint32_t v) {
  uint8_t b[4];
  std::memcpy(b, &v, 4);
  return gguf::Value::FromFixedBytes(gguf::ValueType::kUint32, b);
}

int64_t Elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Two llama layers of width 256 in `type` (F32 or Q8_0), norms in F32.
std::string WriteModel(const std::string& name, DType type) {
  const std::vector<std::pair<std::string, gguf::Value>> metadata = {
      {"general.architecture", gguf::Value::String("llama")}, {"llama.block_count", U32(2)},
      {"llama.attention.head_count", U32(4)},                 {"llama.attention.head_count_kv", U32(4)},
      {"general.name", gguf::Value::String("tiny")}};
  std::vector<gguf::TensorToWrite> table = {{"token_embd.weight", type, {256, 64}}};
  for (int i = 0; i < 2; ++i) {
    const std::string blk = "blk." + std::to_string(i) + ".";
    table.push_back({blk + "attn_norm.weight", DType::kF32, {256}});
    table.push_back({blk + "attn_v.weight", type, {256, 64}});
    table.push_back({blk + "ffn_down.weight", type, {256, 96}});
  }
  table.push_back({"output_norm.weight", DType::kF32, {256}});
  const std::string path = ::testing::TempDir() + "/" + name;
  std::mt19937 rng(3);
  std::normal_distribution<float> weight(0.0f, 0.02f);
  const Status s = gguf::WriteGguf(path, metadata, table, [&](size_t i, std::vector<uint8_t>& bytes) {
    std::vector<float> f(static_cast<size_t>(Elements(table[i].shape)));
    for (float& v : f) v = weight(rng);
    bytes.resize(static_cast<size_t>(Elements(table[i].shape) / 256 * DTypeRowBytes(table[i].dtype, 256)));
    QuantizeWeightRows(table[i].dtype, f.data(), Elements(table[i].shape) / 256, 256, bytes.data());
    return Status::Ok();
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  return path;
}

TEST(RequantizeTest, WritesTheMixOfTheFileTypeWithTheQuantizersBytes) {
  const std::string in = WriteModel("tiny_f32.gguf", DType::kF32);
  const std::string out = ::testing::TempDir() + "/tiny_q4_k_m.gguf";
  std::ostringstream log;
  ASSERT_TRUE(Requantize(in, out, {FileType::kQ4_K_M, false}, log).ok());
  auto src = gguf::GgufFile::Open(in);
  auto dst = gguf::GgufFile::Open(out);
  ASSERT_TRUE(src.ok() && dst.ok());
  EXPECT_EQ((*dst)->GetUint("general.file_type").value(), 15u);  // llama.cpp's id of Q4_K_M
  EXPECT_EQ((*dst)->GetUint("general.quantization_version").value(), 2u);
  EXPECT_EQ((*dst)->GetString("general.name").value(), "tiny");
  TypeMix mix(FileType::kQ4_K_M, {"llama", 2, 4, 4, 0}, (*src)->tensors());
  const std::vector<size_t> order = QuantizationOrder((*src)->tensors());
  ASSERT_EQ((*dst)->tensors().size(), order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const gguf::TensorInfo& a = (*src)->tensors()[order[i]];
    const gguf::TensorInfo& b = (*dst)->tensors()[i];
    EXPECT_EQ(b.name, a.name);
    EXPECT_EQ(b.dtype, mix.Next(a)) << a.name;
    std::vector<uint8_t> want(b.nbytes);
    const int64_t rows = a.num_elements() / a.shape[0];
    QuantizeWeightRows(b.dtype, reinterpret_cast<const float*>(a.data), rows, a.shape[0], want.data());
    EXPECT_EQ(std::memcmp(want.data(), b.data, b.nbytes), 0) << a.name;
  }
  EXPECT_NE(log.str().find("blk.1.ffn_down.weight: F32 -> Q6_K"), std::string::npos) << log.str();
  std::filesystem::remove(in);
  std::filesystem::remove(out);
}

TEST(RequantizeTest, QuantizedInputNeedsAllowRequantize) {
  const std::string in = WriteModel("tiny_q8.gguf", DType::kQ8_0);
  const std::string out = ::testing::TempDir() + "/tiny_requantized.gguf";
  std::ostringstream log;
  const Status refused = Requantize(in, out, {FileType::kQ4_K_M, false}, log);
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("--allow-requantize"), std::string::npos) << refused.message();
  EXPECT_FALSE(std::filesystem::exists(out));
  ASSERT_TRUE(Requantize(in, out, {FileType::kQ4_K_M, true}, log).ok());
  auto dst = gguf::GgufFile::Open(out);
  ASSERT_TRUE(dst.ok());
  EXPECT_EQ((*dst)->FindTensor("blk.1.attn_v.weight")->dtype, DType::kQ6_K);
  std::filesystem::remove(in);
  std::filesystem::remove(out);
}

TEST(RequantizeTest, AMissingInputIsAClearError) {
  std::ostringstream log;
  const Status s = Requantize("/nonexistent.gguf", ::testing::TempDir() + "/x.gguf", {}, log);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent.gguf"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace pagoda::quantize
