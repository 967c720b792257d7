// WeightLoader hands out matrices of every storage type, in place, and names
// the tensor when its shape is wrong.
#include "pagoda/model/weight_loader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "pagoda/formats/gguf/gguf_file.h"
#include "pagoda/formats/gguf/metadata_builder.h"

namespace pagoda {
namespace {

TEST(WeightLoaderTest, HandsOutEveryStorageType) {
  auto file = gguf::GgufFile::Open(std::string(PAGODA_FIXTURES_DIR) + "/gguf/block_types.gguf");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  const WeightLoader loader(**file);
  for (const gguf::TensorInfo& t : (*file)->tensors()) {
    StatusOr<kernels::MatrixView> m = loader.Matrix(t.name, t.shape[1], t.shape[0]);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    EXPECT_EQ(m->dtype, t.dtype) << t.name;
    EXPECT_EQ(m->data, t.data) << t.name;  // in place: the file's mapping
  }
}

TEST(WeightLoaderTest, RefusesAMatrixOfTheWrongShape) {
  auto file = gguf::GgufFile::Open(std::string(PAGODA_FIXTURES_DIR) + "/gguf/all_types_v3.gguf");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  const WeightLoader loader(**file);
  StatusOr<kernels::MatrixView> m = loader.Matrix("tensor.q4_1", 2, 64);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(m.status().message().find("tensor.q4_1"), std::string::npos) << m.status().message();
}

TEST(WeightLoaderTest, HandsOutRunnableTypes) {
  auto file = gguf::GgufFile::Open(std::string(PAGODA_FIXTURES_DIR) + "/gguf/all_types_v3.gguf");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  const WeightLoader loader(**file);
  StatusOr<kernels::MatrixView> m = loader.Matrix("tensor.q4_1", 1, 64);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->dtype, DType::kQ4_1);
  EXPECT_EQ(m->rows, 1);
  EXPECT_EQ(m->cols, 64);
}

// A [2][64] F32 matrix "m.weight" with the I32 tensor "m.input_order".
std::unique_ptr<gguf::GgufFile> WithInputOrder(const std::vector<int32_t>& order, DType order_dtype = DType::kI32) {
  auto storage = std::make_shared<std::vector<std::vector<uint8_t>>>();
  storage->emplace_back(2 * 64 * sizeof(float));
  storage->emplace_back(order.size() * sizeof(int32_t));
  std::memcpy(storage->back().data(), order.data(), storage->back().size());
  gguf::TensorInfo weight;
  weight.name = "m.weight";
  weight.dtype = DType::kF32;
  weight.shape = {64, 2};
  weight.nbytes = storage->front().size();
  weight.data = storage->front().data();
  gguf::TensorInfo input_order;
  input_order.name = "m.input_order";
  input_order.dtype = order_dtype;
  input_order.shape = {static_cast<int64_t>(order.size())};
  input_order.nbytes = storage->back().size();
  input_order.data = storage->back().data();
  auto file = gguf::GgufFile::FromTables(gguf::MetadataBuilder(), {weight, input_order}, storage);
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  return std::move(*file);
}

TEST(WeightLoaderTest, AttachesAMatrixsInputOrder) {
  std::vector<int32_t> order(64);
  for (int k = 0; k < 64; ++k) order[k] = 63 - k;
  const auto file = WithInputOrder(order);
  StatusOr<kernels::MatrixView> m = WeightLoader(*file).Matrix("m.weight", 2, 64);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_NE(m->input_order, nullptr);
  EXPECT_EQ(std::vector<int32_t>(m->input_order, m->input_order + 64), order);
  EXPECT_EQ(SliceRows(*m, 1, 1).input_order, m->input_order);
}

TEST(WeightLoaderTest, RefusesAnInputOrderThatIsNotAPermutation) {
  std::vector<int32_t> order(64);
  for (int k = 0; k < 64; ++k) order[k] = k;
  for (const auto& [edit, why] : std::vector<std::pair<std::pair<int, int32_t>, std::string>>{
           {{5, 6}, "not a permutation"}, {{0, 64}, "not a permutation"}, {{3, -1}, "not a permutation"}}) {
    std::vector<int32_t> bad = order;
    bad[edit.first] = edit.second;
    const auto file = WithInputOrder(bad);
    StatusOr<kernels::MatrixView> m = WeightLoader(*file).Matrix("m.weight", 2, 64);
    ASSERT_FALSE(m.ok());
    EXPECT_NE(m.status().message().find("'m.input_order' is " + why), std::string::npos) << m.status().message();
  }
  const auto short_order = WithInputOrder(std::vector<int32_t>(order.begin(), order.begin() + 32));
  StatusOr<kernels::MatrixView> m = WeightLoader(*short_order).Matrix("m.weight", 2, 64);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("must be I32 [64]"), std::string::npos) << m.status().message();
}

}  // namespace
}  // namespace pagoda
