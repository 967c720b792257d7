// llama-quantize's type rules on synthetic tensor tables. (The e2e test
// tests/e2e/test_quantize.py checks whole files against llama-quantize's.)
#include "pagoda/quantize/type_mix.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace pagoda::quantize {
namespace {

gguf::TensorInfo Tensor(const std::string& name, std::vector<int64_t> shape, DType type = DType::kF32) {
  gguf::TensorInfo t;
  t.name = name;
  t.dtype = type;
  t.shape = std::move(shape);
  return t;
}

// A llama-style table: `layers` blocks of attn_norm, attn_v, ffn_down (rows
// of `cols` elements), then output_norm and, unless tied, output.
std::vector<gguf::TensorInfo> Table(int layers, int64_t cols, bool tied) {
  std::vector<gguf::TensorInfo> table = {Tensor("token_embd.weight", {cols, 1000})};
  for (int i = 0; i < layers; ++i) {
    const std::string blk = "blk." + std::to_string(i) + ".";
    table.push_back(Tensor(blk + "attn_norm.weight", {cols}));
    table.push_back(Tensor(blk + "attn_v.weight", {cols, 64}));
    table.push_back(Tensor(blk + "ffn_down.weight", {cols, cols}));
  }
  table.push_back(Tensor("output_norm.weight", {cols}));
  if (!tied) table.push_back(Tensor("output.weight", {cols, 1000}));
  return table;
}

// The types of `table`, a Table(layers, ...).
std::vector<DType> Mix(FileType type, int64_t layers, const std::vector<gguf::TensorInfo>& table,
                       int64_t heads = 8, int64_t kv_heads = 8) {
  TypeMix mix(type, {"llama", layers, heads, kv_heads, 0}, table);
  std::vector<DType> out;
  for (const gguf::TensorInfo& t : table) out.push_back(mix.Next(t));
  return out;
}

TEST(TypeMixTest, Q4KMGivesSixBitsToTheFirstAndLastEighthAndEveryThirdLayer) {
  const std::vector<gguf::TensorInfo> table = Table(16, 512, false);
  const std::vector<DType> types = Mix(FileType::kQ4_K_M, 16, table);
  // 16 layers: n/8 = 2, 7n/8 = 14; between, the layers i with (i - 2) % 3 == 2.
  const std::vector<int> more_bits = {0, 1, 4, 7, 10, 13, 14, 15};
  for (int i = 0; i < 16; ++i) {
    const bool more = std::find(more_bits.begin(), more_bits.end(), i) != more_bits.end();
    EXPECT_EQ(types[1 + 3 * i + 1], more ? DType::kQ6_K : DType::kQ4_K) << "attn_v of layer " << i;
    EXPECT_EQ(types[1 + 3 * i + 2], more ? DType::kQ6_K : DType::kQ4_K) << "ffn_down of layer " << i;
    EXPECT_EQ(types[1 + 3 * i], DType::kF32) << "norms are never quantized";
  }
  EXPECT_EQ(types.front(), DType::kQ4_K);  // an untied embedding keeps the base type
  EXPECT_EQ(types.back(), DType::kQ6_K);   // the output projection
}

TEST(TypeMixTest, ATiedEmbeddingIsTreatedAsTheOutput) {
  EXPECT_EQ(Mix(FileType::kQ4_K_M, 8, Table(8, 512, true)).front(), DType::kQ6_K);
  // Rows that Q6_K cannot hold make it Q8_0.
  EXPECT_EQ(Mix(FileType::kQ4_K_M, 8, Table(8, 576, true)).front(), DType::kQ8_0);
}

TEST(TypeMixTest, RowsNotAMultipleOf256FallBackToA32ElementType) {
  const std::vector<DType> q4 = Mix(FileType::kQ4_K_S, 8, Table(8, 576, false));
  EXPECT_EQ(q4[1 + 3 * 5 + 2], DType::kQ5_0);  // Q4_K
  const std::vector<DType> q5 = Mix(FileType::kQ5_K_S, 8, Table(8, 576, false));
  EXPECT_EQ(q5[1 + 3 * 5 + 2], DType::kQ5_1);  // Q5_K
  const std::vector<DType> q6 = Mix(FileType::kQ6_K, 8, Table(8, 576, false));
  EXPECT_EQ(q6[1 + 3 * 5 + 2], DType::kQ8_0);  // Q6_K
  const std::vector<DType> q2 = Mix(FileType::kQ2_K, 8, Table(8, 576, false));
  EXPECT_EQ(q2[1 + 3 * 5 + 2], DType::kQ4_0);  // Q3_K, what Q2_K gives ffn_down
  // 48 columns fit no block type of the mix: F16.
  EXPECT_EQ(Mix(FileType::kQ4_K_M, 8, Table(8, 48, false))[2], DType::kF16);
}

TEST(TypeMixTest, Q2KGivesVMoreBitsWhenKvHeadsAreShared) {
  const std::vector<gguf::TensorInfo> table = Table(8, 512, false);
  EXPECT_EQ(Mix(FileType::kQ2_K, 8, table, 8, 8)[2], DType::kQ3_K);
  EXPECT_EQ(Mix(FileType::kQ2_K, 8, table, 32, 8)[2], DType::kQ4_K);  // 4 query heads per KV head
}

TEST(TypeMixTest, Iq4GivesFiveBitsToTheFirstEighthOfFfnDownAndToSharedV) {
  const std::vector<gguf::TensorInfo> table = Table(16, 512, false);
  for (FileType ftype : {FileType::kIQ4_NL, FileType::kIQ4_XS}) {
    const DType base = DefaultTensorType(ftype);
    const std::vector<DType> types = Mix(ftype, 16, table);
    for (int i = 0; i < 16; ++i) {
      EXPECT_EQ(types[1 + 3 * i + 1], base) << "attn_v of layer " << i;
      EXPECT_EQ(types[1 + 3 * i + 2], i < 2 ? DType::kQ5_K : base) << "ffn_down of layer " << i;
    }
    EXPECT_EQ(types.front(), base);
    EXPECT_EQ(types.back(), DType::kQ6_K);
    EXPECT_EQ(Mix(ftype, 16, table, 32, 8)[2], DType::kQ5_K);  // 4 query heads per KV head
    EXPECT_EQ(Mix(ftype, 16, table, 16, 8)[2], base);
  }
}

TEST(TypeMixTest, Iq4XsFallsBackToIq4NlThenF16) {
  const std::vector<DType> xs = Mix(FileType::kIQ4_XS, 8, Table(8, 576, false));
  EXPECT_EQ(xs[1 + 3 * 5 + 2], DType::kIQ4_NL);
  EXPECT_EQ(xs.back(), DType::kQ8_0);  // the output: Q6_K cannot hold the rows either
  const std::vector<DType> nl = Mix(FileType::kIQ4_NL, 8, Table(8, 576, false));
  EXPECT_EQ(nl[1 + 3 * 5 + 2], DType::kIQ4_NL);
  EXPECT_EQ(nl.back(), DType::kQ8_0);  // Q6_K's fallback, though IQ4_NL's 32 divide the rows
  EXPECT_EQ(Mix(FileType::kIQ4_XS, 8, Table(8, 48, false))[2], DType::kF16);
  EXPECT_EQ(Mix(FileType::kIQ4_NL, 8, Table(8, 48, false))[2], DType::kF16);
}

TEST(TypeMixTest, FloatFileTypesConvertEveryWeightButNotTheNorms) {
  const std::vector<DType> types = Mix(FileType::kF16, 2, Table(2, 576, true));
  EXPECT_EQ(types[0], DType::kF16);
  EXPECT_EQ(types[1], DType::kF32);
  EXPECT_EQ(types[2], DType::kF16);
}

TEST(TypeMixTest, TensorsAreVisitedByLayerThenName) {
  const std::vector<gguf::TensorInfo> table = {Tensor("blk.10.a.weight", {32, 2}), Tensor("blk.2.b.weight", {32, 2}),
                                               Tensor("token_embd.weight", {32, 2}), Tensor("blk.2.a.weight", {32, 2}),
                                               Tensor("output_norm.weight", {32})};
  EXPECT_EQ(QuantizationOrder(table), (std::vector<size_t>{4, 2, 3, 1, 0}));
}

TEST(FileTypeTest, NamesParseIgnoringCaseAndUnknownOnesAreRefused) {
  EXPECT_EQ(ParseFileType("q4_k_m"), FileType::kQ4_K_M);
  EXPECT_EQ(ParseFileType("Q6_K"), FileType::kQ6_K);
  EXPECT_EQ(ParseFileType("Q4_K"), std::nullopt);  // llama-quantize has Q4_K_S and Q4_K_M
  EXPECT_EQ(FileTypeName(FileType::kQ5_K_M), "Q5_K_M");
  EXPECT_EQ(DefaultTensorType(FileType::kQ3_K_M), DType::kQ3_K);
  EXPECT_EQ(ParseFileType("iq4_nl"), FileType::kIQ4_NL);
  EXPECT_EQ(ParseFileType("IQ4_XS"), FileType::kIQ4_XS);
  EXPECT_EQ(static_cast<uint32_t>(FileType::kIQ4_NL), 25u);  // llama_ftype's ids, stored in the file
  EXPECT_EQ(static_cast<uint32_t>(FileType::kIQ4_XS), 30u);
  EXPECT_EQ(DefaultTensorType(FileType::kIQ4_XS), DType::kIQ4_XS);
}

}  // namespace
}  // namespace pagoda::quantize
