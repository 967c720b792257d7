// Hand-built checkpoint directories that SafetensorsCheckpoint must refuse,
// each with an error naming the file and tensor at fault.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "pagoda/formats/safetensors/safetensors_checkpoint.h"
#include "test_util.h"

namespace pagoda::safetensors {
namespace {

using testing::Bytes;
using testing::Contains;
using testing::F32File;
using testing::ScratchDir;
using testing::WriteFile;

void WriteIndex(const ScratchDir& dir, const std::string& text) {
  WriteFile(dir.path() / kIndexFileName, Bytes(text.begin(), text.end()));
}

// The error of opening `dir`, which must fail with `code`.
std::string ErrorOf(const ScratchDir& dir, StatusCode code) {
  auto checkpoint = SafetensorsCheckpoint::Open(dir.path().string());
  EXPECT_FALSE(checkpoint.ok());
  if (checkpoint.ok()) return "";
  EXPECT_EQ(checkpoint.status().code(), code) << checkpoint.status().ToString();
  return checkpoint.status().message();
}

TEST(safetensors_checkpoint, TwoValidShards) {
  ScratchDir dir;
  WriteFile(dir.path() / "a.safetensors", F32File({"x", "y"}));
  WriteFile(dir.path() / "b.safetensors", F32File({"z"}, 3));
  WriteIndex(dir, R"({"weight_map":{"x":"a.safetensors","y":"a.safetensors","z":"b.safetensors"}})");
  auto checkpoint = SafetensorsCheckpoint::Open(dir.path().string());
  ASSERT_TRUE(checkpoint.ok()) << checkpoint.status().ToString();
  EXPECT_EQ((*checkpoint)->files().size(), 2u);  // a.safetensors opened once for x and y
  EXPECT_EQ((*checkpoint)->tensors().size(), 3u);
  ASSERT_NE((*checkpoint)->FindTensor("z"), nullptr);
  EXPECT_EQ((*checkpoint)->FindTensor("z")->shape, std::vector<int64_t>{3});
}

TEST(safetensors_checkpoint, SingleFileTakesPrecedenceOverAnIndex) {
  ScratchDir dir;
  WriteFile(dir.path() / kSingleFileName, F32File({"only"}));
  WriteIndex(dir, "not even JSON");
  auto checkpoint = SafetensorsCheckpoint::Open(dir.path().string());
  ASSERT_TRUE(checkpoint.ok()) << checkpoint.status().ToString();
  EXPECT_NE((*checkpoint)->FindTensor("only"), nullptr);
}

TEST(safetensors_checkpoint, NoWeightsInTheDirectory) {
  ScratchDir dir;
  EXPECT_TRUE(Contains(ErrorOf(dir, StatusCode::kNotFound),
                       "holds neither model.safetensors nor model.safetensors.index.json"));
}

TEST(safetensors_checkpoint, CorruptSingleFileNamesTheFile) {
  ScratchDir dir;
  WriteFile(dir.path() / kSingleFileName, Bytes{1, 2, 3});
  EXPECT_TRUE(Contains(ErrorOf(dir, StatusCode::kDataLoss), "model.safetensors': file of 3 bytes is too short"));
}

TEST(safetensors_checkpoint, MissingShard) {
  ScratchDir dir;
  WriteFile(dir.path() / "a.safetensors", F32File({"x"}));
  WriteIndex(dir, R"({"weight_map":{"x":"a.safetensors","y":"b.safetensors"}})");
  const std::string message = ErrorOf(dir, StatusCode::kNotFound);
  EXPECT_TRUE(Contains(message, "cannot open"));
  EXPECT_TRUE(Contains(message, "b.safetensors"));
}

TEST(safetensors_checkpoint, TensorMissingFromItsShard) {
  ScratchDir dir;
  WriteFile(dir.path() / "a.safetensors", F32File({"x"}));
  WriteFile(dir.path() / "b.safetensors", F32File({"y"}));
  WriteIndex(dir, R"({"weight_map":{"x":"a.safetensors","y":"b.safetensors","w":"b.safetensors"}})");
  EXPECT_TRUE(Contains(ErrorOf(dir, StatusCode::kNotFound), "tensor 'w' is not in shard 'b.safetensors'"));
}

TEST(safetensors_checkpoint, TensorInAnotherShardThanTheIndexSays) {
  ScratchDir dir;
  WriteFile(dir.path() / "a.safetensors", F32File({"x", "y"}));
  WriteFile(dir.path() / "b.safetensors", F32File({"z"}));
  WriteIndex(dir, R"({"weight_map":{"x":"a.safetensors","y":"b.safetensors","z":"b.safetensors"}})");
  EXPECT_TRUE(Contains(ErrorOf(dir, StatusCode::kNotFound),
                       "tensor 'y' is not in shard 'b.safetensors' (it is in 'a.safetensors')"));
}

TEST(safetensors_checkpoint, TensorInTwoShards) {
  ScratchDir dir;
  WriteFile(dir.path() / "a.safetensors", F32File({"x", "y"}));
  WriteFile(dir.path() / "b.safetensors", F32File({"y"}));
  WriteIndex(dir, R"({"weight_map":{"x":"a.safetensors","y":"b.safetensors"}})");
  EXPECT_TRUE(Contains(ErrorOf(dir, StatusCode::kDataLoss),
                       "tensor 'y' is in two shards: 'a.safetensors' and 'b.safetensors'"));
}

TEST(safetensors_checkpoint, ShardTensorNotInTheWeightMap) {
  ScratchDir dir;
  WriteFile(dir.path() / "a.safetensors", F32File({"x", "extra"}));
  WriteIndex(dir, R"({"weight_map":{"x":"a.safetensors"}})");
  EXPECT_TRUE(Contains(ErrorOf(dir, StatusCode::kDataLoss),
                       "tensor 'extra' of shard 'a.safetensors' is not in the weight map"));
}

TEST(safetensors_checkpoint, BadIndex) {
  ScratchDir dir;
  WriteIndex(dir, "{\"weight_map\": ");
  EXPECT_TRUE(Contains(ErrorOf(dir, StatusCode::kDataLoss), "model.safetensors.index.json': not valid JSON"));
  WriteIndex(dir, R"({"metadata":{"total_size":1e99999}})");
  EXPECT_TRUE(Contains(ErrorOf(dir, StatusCode::kDataLoss), "model.safetensors.index.json': not valid JSON"));
  WriteIndex(dir, R"({"metadata":{}})");
  EXPECT_TRUE(Contains(ErrorOf(dir, StatusCode::kDataLoss), "no \"weight_map\" object"));
  WriteIndex(dir, R"({"weight_map":{"x":3}})");
  EXPECT_TRUE(Contains(ErrorOf(dir, StatusCode::kDataLoss), "weight_map entry for tensor 'x' is not a file name"));
  WriteIndex(dir, R"({"weight_map":{"x":"../a.safetensors"}})");
  EXPECT_TRUE(Contains(ErrorOf(dir, StatusCode::kDataLoss),
                       "weight_map entry for tensor 'x' names '../a.safetensors', not a file in the checkpoint's "
                       "directory"));
}

}  // namespace
}  // namespace pagoda::safetensors
