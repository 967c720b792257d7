// Damaged and hand-built files: each must fail with an error that names the
// problem (and the tensor or field), never crash (run under ASan too).
#include <gtest/gtest.h>

#include <string>

#include "pagoda/formats/safetensors/header_parser.h"
#include "pagoda/formats/safetensors/safetensors_file.h"
#include "test_util.h"

namespace pagoda::safetensors {
namespace {

using testing::BuildFile;
using testing::Bytes;
using testing::FixturePath;
using testing::ReadFile;
using testing::ScratchDir;
using testing::WriteFile;
using testing::Contains;

// The error of parsing `bytes`, which must fail with `code`.
std::string ErrorOf(const Bytes& bytes, StatusCode code = StatusCode::kDataLoss) {
  auto file = SafetensorsFile::FromBytes(bytes);
  EXPECT_FALSE(file.ok());
  if (file.ok()) return "";
  EXPECT_EQ(file.status().code(), code) << file.status().ToString();
  return file.status().message();
}

std::string ErrorOf(const std::string& header, size_t data_size, StatusCode code = StatusCode::kDataLoss) {
  return ErrorOf(BuildFile(header, data_size), code);
}

TEST(safetensors_corruption, EveryTruncationFails) {
  // The tensors tile the data section to the last byte, so no prefix is a valid file.
  const Bytes full = ReadFile(FixturePath("all_dtypes.safetensors"));
  ASSERT_TRUE(SafetensorsFile::FromBytes(full).ok());
  for (size_t n = 0; n < full.size(); ++n) {
    auto file = SafetensorsFile::FromBytes(Bytes(full.begin(), full.begin() + static_cast<ptrdiff_t>(n)));
    ASSERT_FALSE(file.ok()) << "prefix of " << n << " bytes";
    EXPECT_EQ(file.status().code(), StatusCode::kDataLoss) << file.status().ToString();
  }
}

TEST(safetensors_corruption, TooShortForTheHeaderLength) {
  EXPECT_TRUE(Contains(ErrorOf(Bytes{1, 0, 0}), "too short for the header length"));
}

TEST(safetensors_corruption, HeaderLengthPastTheEnd) {
  Bytes bytes = BuildFile("{}", 0);
  bytes[0] = 3;  // one byte longer than the file holds
  EXPECT_TRUE(Contains(ErrorOf(bytes), "header length 3 runs past the end of the file (10 bytes)"));
}

TEST(safetensors_corruption, HeaderLengthOverTheLimit) {
  Bytes bytes = BuildFile("{}", 0);
  for (int i = 0; i < 8; ++i) bytes[static_cast<size_t>(i)] = static_cast<uint8_t>((kMaxHeaderBytes + 1) >> (8 * i));
  EXPECT_TRUE(Contains(ErrorOf(bytes), "exceeds the limit of 100000000 bytes"));
}

TEST(safetensors_corruption, HeaderIsNotJson) {
  EXPECT_TRUE(Contains(ErrorOf("{\"a\": ", 0), "header is not valid JSON"));
  EXPECT_TRUE(Contains(ErrorOf("{\"\xff\": 1}", 0), "header is not valid JSON"));  // not UTF-8
  // nlohmann throws out_of_range, not parse_error, for a number past a double's range (found by fuzzing).
  EXPECT_TRUE(Contains(ErrorOf("{\"a\": 1e99999}", 0), "header is not valid JSON"));
  EXPECT_TRUE(Contains(ErrorOf("[1, 2]", 0), "header is not a JSON object"));
}

TEST(safetensors_corruption, TensorDescribedTwice) {
  const std::string t = R"({"dtype":"U8","shape":[1],"data_offsets":[0,1]})";
  EXPECT_TRUE(Contains(ErrorOf("{\"a\":" + t + ",\"a\":" + t + "}", 1), "header names 'a' twice"));
}

TEST(safetensors_corruption, UnknownDtype) {
  const std::string message = ErrorOf(R"({"w":{"dtype":"F4","shape":[2],"data_offsets":[0,1]}})", 1,
                                      StatusCode::kUnimplemented);
  EXPECT_TRUE(Contains(message, "tensor 'w': unknown dtype 'F4'"));
  EXPECT_TRUE(Contains(message, "F8_E5M2"));  // lists what it reads
  EXPECT_TRUE(Contains(ErrorOf(R"({"w":{"shape":[1],"data_offsets":[0,1]}})", 1),
                       "tensor 'w': dtype is missing or not a string"));
}

TEST(safetensors_corruption, BadShapes) {
  EXPECT_TRUE(Contains(ErrorOf(R"({"w":{"dtype":"U8","shape":[2,-1],"data_offsets":[0,0]}})", 0),
                       "tensor 'w': shape[1] is negative"));
  EXPECT_TRUE(Contains(ErrorOf(R"({"w":{"dtype":"U8","shape":[1.5],"data_offsets":[0,0]}})", 0),
                       "tensor 'w': shape[0] is not an integer"));
  EXPECT_TRUE(Contains(ErrorOf(R"({"w":{"dtype":"U8","shape":4,"data_offsets":[0,4]}})", 4),
                       "tensor 'w': shape is missing or not an array"));
  EXPECT_TRUE(Contains(ErrorOf(R"({"w":{"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,0]}})", 0),
                       "tensor 'w': shape's element count overflows"));
  // A dimension past int64_t after a zero one: the product fits, the dimension does not.
  EXPECT_TRUE(Contains(ErrorOf(R"({"w":{"dtype":"U8","shape":[0,9223372036854775808],"data_offsets":[0,0]}})", 0),
                       "tensor 'w': shape's element count overflows"));
  EXPECT_TRUE(Contains(ErrorOf(R"({"w":{"dtype":"F64","shape":[4611686018427387904],"data_offsets":[0,0]}})", 0),
                       "tensor 'w': shape's byte size overflows"));
}

TEST(safetensors_corruption, BadOffsets) {
  EXPECT_TRUE(Contains(ErrorOf(R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[0,5]}})", 4),
                       "tensor 'w': data_offsets [0, 5) runs past the data section (4 bytes)"));
  EXPECT_TRUE(Contains(ErrorOf(R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[4,0]}})", 4),
                       "tensor 'w': data_offsets [4, 0) ends before it begins"));
  EXPECT_TRUE(Contains(ErrorOf(R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[0]}})", 4),
                       "tensor 'w': data_offsets is missing or not a [begin, end] pair"));
  EXPECT_TRUE(Contains(ErrorOf(R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[-1,3]}})", 4),
                       "tensor 'w': data_offsets begin is negative"));
}

TEST(safetensors_corruption, SizeMismatch) {
  EXPECT_TRUE(Contains(ErrorOf(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8),
                       "tensor 'w': data_offsets [0, 8) holds 8 bytes, but 3 elements of F32 need 12"));
}

TEST(safetensors_corruption, OverlappingTensors) {
  EXPECT_TRUE(Contains(ErrorOf(R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},)"
                               R"("b":{"dtype":"U8","shape":[8],"data_offsets":[4,12]}})",
                               12),
                       "tensor 'b' overlaps tensor 'a' (bytes 4 to 8)"));
}

TEST(safetensors_corruption, BytesOfNoTensor) {
  EXPECT_TRUE(Contains(ErrorOf(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})", 4),
                       "bytes 0 to 2 of the data section belong to no tensor (before tensor 'a')"));
  EXPECT_TRUE(Contains(ErrorOf(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})", 4),
                       "the data section has 4 bytes but its tensors cover 2"));
}

TEST(safetensors_corruption, BadEntries) {
  EXPECT_TRUE(Contains(ErrorOf(R"({"w":[1]})", 0), "tensor 'w' is not an object"));
  EXPECT_TRUE(Contains(ErrorOf(R"({"w":{"dtype":"U8","shape":[],"data_offsets":[0,1],"scale":2}})", 1),
                       "tensor 'w': unexpected field 'scale'"));
  EXPECT_TRUE(Contains(ErrorOf(R"({"__metadata__":{"format":1}})", 0), "__metadata__ 'format' is not a string"));
  EXPECT_TRUE(Contains(ErrorOf(R"({"__metadata__":"pt"})", 0), "__metadata__ is not an object of strings"));
}

TEST(safetensors_corruption, EmptyAndScalarTensorsAreValid) {
  auto file = SafetensorsFile::FromBytes(BuildFile(
      R"({"__metadata__":{},"e":{"dtype":"F32","shape":[0,3],"data_offsets":[0,0]},)"
      R"("s":{"dtype":"I16","shape":[],"data_offsets":[0,2]}})",
      2));
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  ASSERT_NE((*file)->FindTensor("e"), nullptr);
  EXPECT_EQ((*file)->FindTensor("e")->num_elements(), 0);
  EXPECT_TRUE((*file)->FindTensor("e")->data.empty());
  EXPECT_EQ((*file)->FindTensor("s")->num_elements(), 1);
  EXPECT_EQ((*file)->FindTensor("s")->data.size(), 2u);
}

TEST(safetensors_corruption, OpenNamesTheFile) {
  ScratchDir dir;
  const std::string path = (dir.path() / "bad.safetensors").string();
  WriteFile(path, BuildFile(R"({"w":{"dtype":"Q4","shape":[1],"data_offsets":[0,1]}})", 1));
  auto file = SafetensorsFile::Open(path);
  ASSERT_FALSE(file.ok());
  EXPECT_TRUE(Contains(file.status().message(), "'" + path + "': tensor 'w': unknown dtype 'Q4'"));
  auto missing = SafetensorsFile::Open((dir.path() / "missing.safetensors").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(Contains(missing.status().message(), "missing.safetensors"));
}

}  // namespace
}  // namespace pagoda::safetensors
