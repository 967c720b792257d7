// The fixtures written by the `safetensors` package (make_fixtures.py): every
// tensor's dtype, shape and bytes must be what expected.json, written from
// numpy, records, and its values must decode to numpy's.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pagoda/formats/safetensors/safetensors_checkpoint.h"
#include "pagoda/formats/safetensors/safetensors_file.h"
#include "pagoda/tensor/half.h"
#include "test_util.h"

namespace pagoda::safetensors {
namespace {

using nlohmann::json;
using testing::FixturePath;
using testing::ReadFile;

json Expected() {
  const auto bytes = ReadFile(FixturePath("expected.json"));
  return json::parse(bytes.begin(), bytes.end());
}

std::string Hex(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (const uint8_t b : bytes) {
    hex += kDigits[b >> 4];
    hex += kDigits[b & 15];
  }
  return hex;
}

// Element i, read as the host's T: the format is little-endian, as is every host Pagoda builds for.
template <typename T>
T Element(const SafetensorsTensor& t, size_t i) {
  T v;
  std::memcpy(&v, t.data.data() + i * sizeof(T), sizeof(T));
  return v;
}

// Element i of `t` against numpy's value. The FP8 types have no decoder in
// Pagoda yet; their bytes are checked against numpy's all the same.
void ExpectElement(const SafetensorsTensor& t, size_t i, const json& value) {
  switch (t.dtype) {
    case Dtype::kBool: EXPECT_EQ(Element<uint8_t>(t, i) != 0, value.get<bool>()); break;
    case Dtype::kU8: EXPECT_EQ(Element<uint8_t>(t, i), value.get<uint8_t>()); break;
    case Dtype::kI8: EXPECT_EQ(Element<int8_t>(t, i), value.get<int8_t>()); break;
    case Dtype::kI16: EXPECT_EQ(Element<int16_t>(t, i), value.get<int16_t>()); break;
    case Dtype::kU16: EXPECT_EQ(Element<uint16_t>(t, i), value.get<uint16_t>()); break;
    case Dtype::kI32: EXPECT_EQ(Element<int32_t>(t, i), value.get<int32_t>()); break;
    case Dtype::kU32: EXPECT_EQ(Element<uint32_t>(t, i), value.get<uint32_t>()); break;
    case Dtype::kI64: EXPECT_EQ(Element<int64_t>(t, i), value.get<int64_t>()); break;
    case Dtype::kU64: EXPECT_EQ(Element<uint64_t>(t, i), value.get<uint64_t>()); break;
    case Dtype::kF16: EXPECT_EQ(F16ToF32(Element<uint16_t>(t, i)), value.get<double>()); break;
    case Dtype::kBF16: EXPECT_EQ(BF16ToF32(Element<uint16_t>(t, i)), value.get<double>()); break;
    case Dtype::kF32: EXPECT_EQ(Element<float>(t, i), value.get<double>()); break;
    case Dtype::kF64: EXPECT_EQ(Element<double>(t, i), value.get<double>()); break;
    case Dtype::kF8E4M3:
    case Dtype::kF8E5M2: break;
  }
}

void ExpectTensor(const SafetensorsTensor* t, const std::string& name, const json& expected) {
  ASSERT_NE(t, nullptr) << name;
  EXPECT_EQ(t->name, name);
  EXPECT_EQ(DtypeName(t->dtype), expected["dtype"].get<std::string>()) << name;
  EXPECT_EQ(t->shape, expected["shape"].get<std::vector<int64_t>>()) << name;
  EXPECT_EQ(Hex(t->data), expected["hex"].get<std::string>()) << name;
  const json& values = expected["values"];
  ASSERT_EQ(static_cast<size_t>(t->num_elements()), values.size()) << name;
  for (size_t i = 0; i < values.size(); ++i) {
    SCOPED_TRACE(name + "[" + std::to_string(i) + "]");
    ExpectElement(*t, i, values[i]);
  }
}

TEST(safetensors_fixture, EveryDtypeReadsAsThePackageWroteIt) {
  const json expected = Expected()["all_dtypes.safetensors"];
  auto file = SafetensorsFile::Open(FixturePath("all_dtypes.safetensors"));
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  ASSERT_EQ((*file)->tensors().size(), expected["tensors"].size());
  std::set<std::string> dtypes;
  for (const auto& [name, tensor] : expected["tensors"].items()) {
    ExpectTensor((*file)->FindTensor(name), name, tensor);
    dtypes.insert(tensor["dtype"].get<std::string>());
  }
  EXPECT_EQ(dtypes.size(), 15u);  // every dtype the format defines
  EXPECT_TRUE((*file)->metadata().empty());
  EXPECT_EQ((*file)->FindTensor("absent"), nullptr);
}

TEST(safetensors_fixture, TensorsComeInTheOrderOfTheirBytes) {
  auto file = SafetensorsFile::Open(FixturePath("all_dtypes.safetensors"));
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  const auto& tensors = (*file)->tensors();
  for (size_t i = 1; i < tensors.size(); ++i) {
    EXPECT_EQ(tensors[i - 1].data.data() + tensors[i - 1].data.size(), tensors[i].data.data()) << tensors[i].name;
  }
}

TEST(safetensors_fixture, MetadataIsExposed) {
  const json expected = Expected()["single/model.safetensors"];
  auto file = SafetensorsFile::Open(FixturePath("single/model.safetensors"));
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ((*file)->metadata(), (expected["metadata"].get<std::map<std::string, std::string>>()));
  EXPECT_FALSE((*file)->metadata().empty());
}

TEST(safetensors_fixture, SingleFileCheckpoint) {
  const json expected = Expected()["single/model.safetensors"];
  auto checkpoint = SafetensorsCheckpoint::Open(FixturePath("single"));
  ASSERT_TRUE(checkpoint.ok()) << checkpoint.status().ToString();
  ASSERT_EQ((*checkpoint)->files().size(), 1u);
  ASSERT_EQ((*checkpoint)->tensors().size(), expected["tensors"].size());
  for (const auto& [name, tensor] : expected["tensors"].items()) {
    ExpectTensor((*checkpoint)->FindTensor(name), name, tensor);
  }
}

TEST(safetensors_fixture, ShardedCheckpointFindsEachTensorInItsShard) {
  const json expected = Expected()["sharded"];
  auto checkpoint = SafetensorsCheckpoint::Open(FixturePath("sharded"));
  ASSERT_TRUE(checkpoint.ok()) << checkpoint.status().ToString();
  const auto& files = (*checkpoint)->files();
  ASSERT_EQ(files.size(), 2u);
  ASSERT_EQ((*checkpoint)->tensors().size(), expected["tensors"].size());
  for (const auto& [name, tensor] : expected["tensors"].items()) {
    const SafetensorsTensor* t = (*checkpoint)->FindTensor(name);
    ExpectTensor(t, name, tensor);
    const std::string shard = expected["shard_of"][name].get<std::string>();
    int holders = 0;
    for (const auto& file : files) {
      if (file->FindTensor(name) == nullptr) continue;
      ++holders;
      EXPECT_EQ(file->FindTensor(name), t);
      EXPECT_TRUE(file->path().ends_with("/" + shard)) << file->path() << " holds " << name;
    }
    EXPECT_EQ(holders, 1) << name;
  }
  EXPECT_EQ((*checkpoint)->FindTensor("absent"), nullptr);
}

}  // namespace
}  // namespace pagoda::safetensors
