// Dequantization of every GGML block type Pagoda reads, against the `gguf`
// package's dequantize on random blocks (tests/fixtures/quants/, made by
// make_dequant_fixtures.py there). The arithmetic is the same f32 products
// and differences in the same order, so the values must agree bit for bit.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda::kernels {
namespace {

const std::string kDir = std::string(PAGODA_FIXTURES_DIR) + "/quants/";

std::vector<char> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot open " << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

nlohmann::json Index() {
  const std::vector<char> text = ReadFile(kDir + "index.json");
  return nlohmann::json::parse(text.begin(), text.end());
}

class GgufDequantizeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GgufDequantizeTest, MatchesTheGgufPackage) {
  const std::string name = GetParam();
  nlohmann::json entry;
  for (const nlohmann::json& e : Index()) {
    if (e["type"] == name) entry = e;
  }
  ASSERT_FALSE(entry.is_null()) << name << " is not in the fixture index";
  const auto type = static_cast<DType>(entry["ggml_id"].get<uint32_t>());
  ASSERT_EQ(DTypeName(type), name);
  ASSERT_EQ(DTypeBlockElems(type), entry["block_elems"].get<int64_t>());
  ASSERT_EQ(DTypeBlockBytes(type), entry["block_bytes"].get<int64_t>());

  const std::vector<char> blocks = ReadFile(kDir + name + ".blocks");
  const std::vector<char> want_bytes = ReadFile(kDir + name + ".f32");
  const int64_t n = entry["num_blocks"].get<int64_t>() * DTypeBlockElems(type);
  ASSERT_EQ(static_cast<int64_t>(blocks.size()), DTypeRowBytes(type, n));
  ASSERT_EQ(static_cast<int64_t>(want_bytes.size()), n * 4);
  std::vector<float> want(static_cast<size_t>(n));
  std::memcpy(want.data(), want_bytes.data(), want_bytes.size());

  std::vector<float> got(static_cast<size_t>(n));
  reference::DequantizeRow(type, blocks.data(), got.data(), n);
  int64_t mismatches = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (got[i] != want[i] && mismatches++ < 5) ADD_FAILURE() << name << " element " << i << ": " << got[i]
                                                             << " != " << want[i];
  }
  EXPECT_EQ(mismatches, 0) << name;
}

INSTANTIATE_TEST_SUITE_P(GgmlTypes, GgufDequantizeTest,
                         ::testing::Values("Q4_0", "Q4_1", "Q8_0", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K",
                                           "Q6_K", "IQ4_NL", "IQ4_XS"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace pagoda::kernels
