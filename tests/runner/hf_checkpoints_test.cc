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

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "model_harness.h"
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

class HfCheckpointTest : public ::testing::TestWithParam<std::string> {};

TEST_P(HfCheckpointTest, LogitsMatchTransformers) {
  const json reference = Reference(GetParam());
  // float32 checkpoints would be stored in bfloat16 under auto, as vLLM's CPU
  // backend does; transformers ran them in float32.
  const hf::WeightDtype dtype = GetParam().ends_with("f32") ? hf::WeightDtype::kFloat32 : hf::WeightDtype::kAuto;
  auto file = Open(GetParam(), dtype);
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
  const hf::WeightDtype dtype = GetParam().ends_with("f32") ? hf::WeightDtype::kFloat32 : hf::WeightDtype::kAuto;
  auto file = Open(GetParam(), dtype);
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

}  // namespace
}  // namespace pagoda
