// quantization_config is read into a scheme or refused by the key that asks
// for what Pagoda cannot do; the layout each scheme is repacked into.
#include "pagoda/model/hf/quantized_weights.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/tensor/half.h"

namespace pagoda::hf {
namespace {

using nlohmann::json;

json Gptq(bool sym, bool desc_act, int bits = 4) {
  return {{"quant_method", "gptq"}, {"bits", bits}, {"group_size", 128}, {"sym", sym}, {"desc_act", desc_act}};
}

TEST(QuantSchemeTest, GptqWithZeroPointsAndActOrderIsRead) {
  for (const bool sym : {true, false}) {
    for (const bool desc_act : {true, false}) {
      const auto s = ReadQuantScheme(Gptq(sym, desc_act));
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      EXPECT_EQ(s->format, QuantFormat::kGptq);
      EXPECT_EQ(s->symmetric, sym);
      EXPECT_EQ(s->group_size, 128);
      EXPECT_TRUE(s->gptq_v1);
    }
  }
}

TEST(QuantSchemeTest, LayoutsNameTheBlockType) {
  EXPECT_EQ(RepackedLayout(*ReadQuantScheme(Gptq(true, false))), "Q4_0");
  EXPECT_EQ(RepackedLayout(*ReadQuantScheme(Gptq(true, true, 8))), "Q8_0");
  EXPECT_EQ(RepackedLayout(*ReadQuantScheme(Gptq(false, true))), "Q4_1");
  json small_groups = Gptq(true, false);
  small_groups["group_size"] = 16;
  EXPECT_EQ(RepackedLayout(*ReadQuantScheme(small_groups)), "Q8_0 (requantized: groups that do not fill 32-element blocks)");
  EXPECT_EQ(RepackedLayout(*ReadQuantScheme(Gptq(false, false, 8))), "Q8_0 (blocks whose q - z overflow a byte requantized)");
  EXPECT_EQ(RepackedLayout(*ReadQuantScheme({{"quant_method", "awq"}, {"bits", 4}, {"group_size", 64}})), "Q4_1");
  EXPECT_EQ(RepackedLayout(*ReadQuantScheme({{"quant_method", "fp8"}, {"activation_scheme", "dynamic"}})),
            "Q8_0 (requantized from e4m3)");
}

void ExpectRefused(const json& config, const std::string& names) {
  const auto s = ReadQuantScheme(config);
  ASSERT_FALSE(s.ok()) << config.dump();
  EXPECT_NE(s.status().message().find(names), std::string::npos) << s.status().ToString();
}

TEST(QuantSchemeTest, RefusesByKey) {
  json three_bits = Gptq(true, false, 3);
  ExpectRefused(three_bits, "'bits' = 3");
  json zero_group = Gptq(true, false);
  zero_group["group_size"] = 0;
  ExpectRefused(zero_group, "'group_size' = 0");
  json marlin = Gptq(true, false);
  marlin["checkpoint_format"] = "marlin";
  ExpectRefused(marlin, "checkpoint_format");
  ExpectRefused({{"quant_method", "awq"}, {"bits", 4}, {"group_size", 64}, {"zero_point", false}}, "zero_point");
  ExpectRefused({{"quant_method", "awq"}, {"bits", 4}, {"group_size", 64}, {"version", "gemv"}}, "version");
  ExpectRefused({{"quant_method", "bitsandbytes"}}, "'bitsandbytes'");
}

// A model.safetensors of the given tensors (name, dtype, shape, bytes).
struct TensorBytes {
  std::string name, dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::filesystem::path WriteSafetensors(const std::vector<TensorBytes>& tensors) {
  json header = json::object();
  std::vector<uint8_t> data;
  for (const TensorBytes& t : tensors) {
    header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {data.size(), data.size() + t.bytes.size()}}};
    data.insert(data.end(), t.bytes.begin(), t.bytes.end());
  }
  const std::string text = header.dump();
  const auto dir = std::filesystem::path(::testing::TempDir()) / "quantized_weights_test";
  std::filesystem::create_directories(dir);
  std::ofstream out(dir / "model.safetensors", std::ios::binary);
  const uint64_t length = text.size();
  out.write(reinterpret_cast<const char*>(&length), sizeof(length));
  out << text;
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  return dir;
}

// GPTQ groups need not divide the inputs (SmolLM2's 576 in groups of 128):
// 96 inputs in groups of 64 make a full group and a short one of 32. The
// repacked Q4_0 rows dequantize to s * (q - 8) of each input's group,
// computed here from the packing the GPTQ format specifies.
TEST(GptqRepackTest, AShortLastGroupKeepsItsOwnScale) {
  const int64_t in = 96, out = 8, group = 64, groups = 2;
  std::vector<int32_t> qweight(in / 8 * out, 0), qzeros(groups * out / 8, 0);
  std::vector<uint16_t> scales(groups * out);
  auto q = [](int64_t o, int64_t i) { return static_cast<uint32_t>((o * 7 + i * 3) % 16); };
  for (int64_t i = 0; i < in; ++i) {
    for (int64_t o = 0; o < out; ++o) qweight[i / 8 * out + o] |= static_cast<int32_t>(q(o, i) << (4 * (i % 8)));
  }
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t o = 0; o < out; ++o) {
      qzeros[g * out / 8 + o / 8] |= static_cast<int32_t>(7u << (4 * (o % 8)));  // v1: the zero 8, minus one
      scales[g * out + o] = F32ToF16(0.01f * static_cast<float>(1 + o + 10 * g));
    }
  }
  const auto dir = WriteSafetensors({{"l.qweight", "I32", {in / 8, out}, Bytes(qweight)},
                                     {"l.qzeros", "I32", {groups, out / 8}, Bytes(qzeros)},
                                     {"l.scales", "F16", {groups, out}, Bytes(scales)}});
  auto ckpt = safetensors::SafetensorsCheckpoint::Open(dir.string());
  ASSERT_TRUE(ckpt.ok()) << ckpt.status().ToString();
  const auto scheme = ReadQuantScheme(Gptq(true, false));
  ASSERT_TRUE(scheme.ok());
  QuantScheme s = *scheme;
  s.group_size = group;
  const auto m = RepackLinear(**ckpt, "l", s);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->dtype, DType::kQ4_0);
  EXPECT_TRUE(m->input_order.empty());
  std::vector<float> row(in);
  for (int64_t o = 0; o < out; ++o) {
    kernels::reference::DequantizeRow(DType::kQ4_0, m->bytes.data() + o * DTypeRowBytes(DType::kQ4_0, in), row.data(), in);
    for (int64_t i = 0; i < in; ++i) {
      const float want = F16ToF32(scales[(i / group) * out + o]) * (static_cast<float>(q(o, i)) - 8.0f);
      ASSERT_EQ(row[i], want) << o << "," << i;
    }
  }
}

}  // namespace
}  // namespace pagoda::hf
