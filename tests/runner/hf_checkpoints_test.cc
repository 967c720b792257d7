// Hugging Face checkpoint directories against transformers, on the tiny
// random-weight checkpoints of tests/fixtures/hf_models (made by
// make_checkpoints.py there: transformers saves each architecture in
// bfloat16, and a Llama in float16 and float32 and a sharded Qwen2; the
// references are transformers' float32 logits on the same weights).
//
// Per checkpoint, opened through hf::OpenHfCheckpoint and run by the same
// architecture files as the GGUF models:
//   - every position's logits against transformers' within kTolerance;
//   - greedy decoding identical to transformers' except after a near-tie.
// And the loading rules: --dtype conversions, the GGUF view's names, and
// refusals that name what they refuse.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "model_harness.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/kv_blocks/sha256.h"
#include "pagoda/model/hf/hf_checkpoint.h"

namespace pagoda {
namespace {

using nlohmann::json;
using testing_harness::MaxAbsDiff;
using testing_harness::ReadF32;
using testing_harness::TinyModel;
namespace fs = std::filesystem;

fs::path FixtureDir() { return fs::path(PAGODA_FIXTURES_DIR) / "hf_models"; }

// transformers runs the bf16 weights in float32, as Pagoda does; they differ
// only in the order of the sums: at most 2.6e-5 here (mistral), against
// logits with a standard deviation of about 1.3.
constexpr double kTolerance = 1e-3;
// Greedy tokens must agree until transformers' top-2 margin falls below
// this: twice the tolerance cannot change the argmax.
constexpr double kNearTie = 2e-3;

json Reference(const std::string& checkpoint) {
  std::ifstream in(FixtureDir() / "references" / checkpoint / "reference.json");
  EXPECT_TRUE(in.good()) << "missing reference for " << checkpoint;
  return json::parse(in);
}

std::shared_ptr<const gguf::GgufFile> Open(const std::string& checkpoint, hf::WeightDtype dtype) {
  auto opened = hf::OpenHfCheckpoint((FixtureDir() / checkpoint).string(), {.dtype = dtype});
  EXPECT_TRUE(opened.ok()) << checkpoint << ": " << opened.status().ToString();
  return opened.ok() ? opened->file : nullptr;
}

std::vector<float> AllRows(TinyModel& m, const json& reference) {
  std::vector<float> rows;
  for (const auto& seq : reference["sequences"]) {
    const std::vector<float> all = m.AllLogits(seq.get<std::vector<int32_t>>(), seq.size());
    rows.insert(rows.end(), all.begin(), all.end());
  }
  return rows;
}

// float32 checkpoints would be stored in bfloat16 under auto, as vLLM's CPU
// backend does; transformers ran them in float32.
std::shared_ptr<const gguf::GgufFile> OpenAsTransformersRanIt(const std::string& checkpoint) {
  return Open(checkpoint, checkpoint.ends_with("f32") ? hf::WeightDtype::kFloat32 : hf::WeightDtype::kAuto);
}

class HfCheckpointTest : public ::testing::TestWithParam<std::string> {};

TEST_P(HfCheckpointTest, LogitsMatchTransformers) {
  const json reference = Reference(GetParam());
  auto file = OpenAsTransformersRanIt(GetParam());
  ASSERT_NE(file, nullptr);
  TinyModel m(file, GetParam());
  ASSERT_TRUE(m.ok());
  const std::vector<float> want = ReadF32(FixtureDir() / "references" / GetParam() / "logits-hf.f32");
  const double diff = MaxAbsDiff(AllRows(m, reference), want);
  std::printf("%s: max |pagoda - transformers| = %.6f over %zu logits\n", GetParam().c_str(), diff, want.size());
  EXPECT_LT(diff, kTolerance) << GetParam();
}

TEST_P(HfCheckpointTest, GreedyMatchesTransformersUntilANearTie) {
  const json reference = Reference(GetParam());
  auto file = OpenAsTransformersRanIt(GetParam());
  ASSERT_NE(file, nullptr);
  TinyModel m(file, GetParam());
  ASSERT_TRUE(m.ok());
  const json& greedy = reference["greedy"];
  const auto want = greedy["tokens"].get<std::vector<int32_t>>();
  const auto margins = greedy["margins"].get<std::vector<double>>();
  const auto prompt = reference["sequences"][greedy["from_seq"].get<int>()].get<std::vector<int32_t>>();
  const std::vector<int32_t> got = m.Greedy(prompt, static_cast<int>(want.size()));
  size_t compared = 0;
  for (; compared < want.size() && margins[compared] >= kNearTie; ++compared) {
    ASSERT_EQ(got[compared], want[compared]) << GetParam() << " step " << compared;
  }
  std::printf("%s: greedy identical for %zu of %zu steps\n", GetParam().c_str(), compared, want.size());
  EXPECT_GT(compared, 0u) << GetParam() << ": the first step is a near-tie; nothing was compared";
}

INSTANTIATE_TEST_SUITE_P(Checkpoints, HfCheckpointTest,
                         ::testing::Values("qwen2-bf16", "qwen2-bf16-sharded", "qwen3-bf16", "gemma2-bf16",
                                           "gemma3-bf16", "phi3-bf16", "qwen2moe-bf16", "qwen3moe-bf16",
                                           "llama-bf16", "llama-f16", "llama-f32", "mistral-bf16"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// Quantized checkpoints (tests/fixtures/hf_quantized).
namespace quantized {

fs::path QuantDir() { return fs::path(PAGODA_FIXTURES_DIR) / "hf_quantized"; }

json QuantReference(const std::string& checkpoint) {
  std::ifstream in(QuantDir() / "references" / checkpoint / "reference.json");
  EXPECT_TRUE(in.good()) << "missing reference for " << checkpoint;
  return json::parse(in);
}

// "model.layers.0.self_attn.q_proj" -> "blk.0.attn_q.weight" for the layers the reference records.
std::string GgufName(const std::string& hf) {
  const std::string block = hf.substr(std::string("model.layers.").size(), 1);
  for (const auto& [suffix, gguf] : {std::pair{"self_attn.q_proj", "attn_q"}, std::pair{"self_attn.k_proj", "attn_k"},
                                     std::pair{"self_attn.o_proj", "attn_output"}, std::pair{"mlp.down_proj", "ffn_down"}}) {
    if (hf.ends_with(suffix)) return fmt::format("blk.{}.{}.weight", block, gguf);
  }
  return "";
}

// Pagoda's kernels quantize activations to 8 bits per 32-element block; the
// reference is the float forward of the dequantized weights. On these
// models (logits with a standard deviation of about 1.3) that moves the
// logits by 0.11-0.15 whatever the weight format (measured on all seven),
// so the bound is 0.2; a layout error (a nibble order, a scale's group)
// moves them by whole units, and the dequantization test above catches
// those exactly anyway.
constexpr double kQuantTolerance = 0.2;
// FP8 weights, 8-bit GPTQ weights with zero points and GPTQ groups smaller
// than a block are requantized to Q8_0 on top (up to 1/254 of a block's
// largest weight each): measured 0.17-0.23, so 0.25.
constexpr double kRequantizedTolerance = 0.25;

// Whether a checkpoint's layers are requantized to Q8_0 at load.
bool Requantized(const std::string& checkpoint, const json& reference) {
  const json& q = reference["quantization_config"];
  const bool gptq = q.value("quant_method", "") == "gptq";
  return checkpoint.find("fp8") != std::string::npos || (gptq && !q.value("sym", true) && q.value("bits", 4) == 8) ||
         (gptq && q.value("group_size", -1) > 0 && q.value("group_size", -1) % 32 != 0);
}

class HfQuantizedTest : public ::testing::TestWithParam<std::string> {};

// The repacked blocks dequantize to exactly the format's dequantization
// (make_quantized.py's NumPy dequantizer, equal to the quantizer library's):
// the recorded rows bit for bit and every layer's SHA-256. 4-bit zero points
// (AWQ, asymmetric GPTQ) go to Q4_1, which rounds its minimum -z * s to F16,
// at most 2^-11 of 16 scales: the bound is 2^-9 of the layer's largest
// weight. FP8 and 8-bit zero points are requantized to Q8_0, within half a
// step (a block's largest weight / 254): the bound is 2^-7 of the layer's.
// An act-order layer's columns come in group order, put back through its
// input_order.
TEST_P(HfQuantizedTest, RepackedWeightsDequantizeToTheFormatsValues) {
  const json reference = QuantReference(GetParam());
  const bool zero_points = GetParam().starts_with("awq") || reference["quantization_config"].value("sym", true) == false;
  const bool requantized = Requantized(GetParam(), reference);
  const bool exact = !zero_points && !requantized;
  auto opened = hf::OpenHfCheckpoint((QuantDir() / GetParam()).string());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  const std::vector<float> rows = ReadF32(QuantDir() / "references" / GetParam() / "dequant-rows.f32");
  const json& dequant = reference["dequant"];
  int reordered = 0;
  for (const auto& hf_name : dequant["rows_layers"]) {
    const json& layer = dequant["layers"][hf_name.get<std::string>()];
    const gguf::TensorInfo* t = opened->file->FindTensor(GgufName(hf_name));
    ASSERT_NE(t, nullptr) << hf_name;
    const DType want = requantized ? DType::kQ8_0 : zero_points ? DType::kQ4_1 : t->dtype;
    ASSERT_TRUE(t->dtype == want && (t->dtype == DType::kQ4_0 || t->dtype == DType::kQ8_0 || t->dtype == DType::kQ4_1))
        << hf_name;
    const int64_t out = layer["out_features"], in = layer["in_features"];
    std::vector<float> repacked(static_cast<size_t>(out * in));
    for (int64_t o = 0; o < out; ++o) {
      kernels::reference::DequantizeRow(t->dtype, t->data + o * DTypeRowBytes(t->dtype, in), repacked.data() + o * in, in);
    }
    std::vector<float> all = repacked;
    std::string stem = GgufName(hf_name);
    stem.resize(stem.size() - std::string_view(".weight").size());
    if (const gguf::TensorInfo* order = opened->file->FindTensor(stem + ".input_order")) {
      ASSERT_EQ(order->dtype, DType::kI32);
      const auto* channel = reinterpret_cast<const int32_t*>(order->data);
      for (int64_t o = 0; o < out; ++o) {
        for (int64_t k = 0; k < in; ++k) all[o * in + channel[k]] = repacked[o * in + k];
      }
      ++reordered;
    }
    const size_t offset = layer["rows_offset_floats"];
    const size_t n = static_cast<size_t>(dequant["rows"].get<int64_t>() * in);
    if (!exact) {
      const double bound = std::ldexp(layer["full_max_abs"].get<double>(), requantized ? -7 : -9);
      for (size_t e = 0; e < n; ++e) ASSERT_NEAR(all[e], rows[offset + e], bound) << GetParam() << " " << hf_name << " " << e;
      continue;
    }
    EXPECT_EQ(std::memcmp(all.data(), rows.data() + offset, n * sizeof(float)), 0) << GetParam() << " " << hf_name;
    Sha256 h;
    h.Update({reinterpret_cast<const uint8_t*>(all.data()), all.size() * sizeof(float)});
    std::string hex;
    for (uint8_t b : h.Finish()) hex += fmt::format("{:02x}", b);
    EXPECT_EQ(hex, layer["full_sha256"].get<std::string>()) << GetParam() << " " << hf_name;
  }
  // Only act-order checkpoints gather their inputs, and then every layer does.
  const bool act_order = reference["quantization_config"].value("desc_act", false);
  EXPECT_EQ(reordered, act_order ? static_cast<int>(dequant["rows_layers"].size()) : 0) << GetParam();
}

TEST_P(HfQuantizedTest, LogitsMatchTheDequantizedReference) {
  const json reference = QuantReference(GetParam());
  auto opened = hf::OpenHfCheckpoint((QuantDir() / GetParam()).string());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  TinyModel m(opened->file, GetParam());
  ASSERT_TRUE(m.ok());
  const std::vector<float> got = AllRows(m, reference);
  const bool fp8 = GetParam().find("fp8") != std::string::npos;
  const double diff = MaxAbsDiff(got, ReadF32(QuantDir() / "references" / GetParam() / "logits-dequant.f32"));
  std::printf("%s: max |pagoda - dequantized float forward| = %.4f\n", GetParam().c_str(), diff);
  EXPECT_LT(diff, Requantized(GetParam(), reference) ? kRequantizedTolerance : kQuantTolerance) << GetParam();
  // vLLM quantizes FP8 layers' activations to e4m3 (about 6% steps); Pagoda
  // to int8 per 32 elements, far closer to the float forward, so only the
  // int8 emulation (W8A8) is a like-for-like comparison.
  if (reference.contains("logits_actquant") && !fp8) {
    const double act = MaxAbsDiff(got, ReadF32(QuantDir() / "references" / GetParam() / "logits-actquant.f32"));
    std::printf("%s: max |pagoda - vLLM's activation quantization| = %.4f\n", GetParam().c_str(), act);
    // Both quantize the activations to int8, Pagoda per 32 elements and vLLM
    // per token, so each sits within the tolerance of the float forward and
    // they within twice it of each other.
    EXPECT_LT(act, 2 * kQuantTolerance) << GetParam();
  }
}

INSTANTIATE_TEST_SUITE_P(Checkpoints, HfQuantizedTest,
                         ::testing::Values("gptq-4bit-sym-g128", "gptq-8bit-g128", "ct-w4a16-g128", "ct-w8a16",
                                           "ct-w8a8-int8", "awq-4bit-g128", "awq-4bit-g64", "fp8-dynamic",
                                           "ct-fp8-dynamic", "gptq-4bit-asym-g64-actorder",
                                           "gptq-8bit-asym-g32-actorder", "fp8-block128", "fp8-static",
                                           "ct-fp8-block", "gptq-4bit-sym-g16"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// --quantization names the checkpoint's own method, or is refused.
TEST(HfQuantizedFlagTest, QuantizationMustMatchTheCheckpoint) {
  auto mismatch = hf::OpenHfCheckpoint((QuantDir() / "gptq-8bit-g128").string(),
                                       {.dtype = hf::WeightDtype::kAuto, .quantization = "awq"});
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.status().message().find("--quantization awq"), std::string::npos);
  auto same = hf::OpenHfCheckpoint((QuantDir() / "gptq-8bit-g128").string(),
                                   {.dtype = hf::WeightDtype::kAuto, .quantization = "gptq"});
  EXPECT_TRUE(same.ok()) << same.status().ToString();
}

// --quantization fp8 of the bf16 checkpoint quantizes as vLLM does at load;
// fp8-dynamic is that same model quantized by torch from the specification
// (make_quantized.py), so every repacked layer must be byte for byte the
// one Pagoda makes from the checkpoint, and the rest the bf16 tensors.
TEST(HfQuantizedFlagTest, Fp8AtLoadEqualsTheFp8Checkpoint) {
  auto at_load = hf::OpenHfCheckpoint((FixtureDir() / "qwen2-bf16").string(),
                                      {.dtype = hf::WeightDtype::kAuto, .quantization = "fp8"});
  ASSERT_TRUE(at_load.ok()) << at_load.status().ToString();
  auto stored = hf::OpenHfCheckpoint((QuantDir() / "fp8-dynamic").string());
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_NE(at_load->description.find("7 layers quantized to FP8 at load"), std::string::npos) << at_load->description;
  int q8 = 0;
  for (const gguf::TensorInfo& want : stored->file->tensors()) {
    const gguf::TensorInfo* got = at_load->file->FindTensor(want.name);
    ASSERT_NE(got, nullptr) << want.name;
    ASSERT_EQ(got->dtype, want.dtype) << want.name;
    ASSERT_EQ(got->nbytes, want.nbytes) << want.name;
    EXPECT_EQ(std::memcmp(got->data, want.data, want.nbytes), 0) << want.name;
    q8 += want.dtype == DType::kQ8_0;
  }
  EXPECT_EQ(q8, 7);
  EXPECT_EQ(at_load->file->tensors().size(), stored->file->tensors().size());
  // Only fp8 quantizes at load.
  auto awq = hf::OpenHfCheckpoint((FixtureDir() / "qwen2-bf16").string(),
                                  {.dtype = hf::WeightDtype::kAuto, .quantization = "awq"});
  ASSERT_FALSE(awq.ok());
  EXPECT_NE(awq.status().message().find("only fp8 quantizes a float checkpoint at load"), std::string::npos);
}

}  // namespace quantized

}  // namespace
}  // namespace pagoda
