// Hand-built files for edge cases the reference writer cannot produce
// (empty arrays, deep nesting, data ending exactly at end of file).
#include <gtest/gtest.h>

#include <string>

#include "pagoda/formats/gguf/gguf_file.h"
#include "pagoda/formats/gguf/metadata_reader.h"
#include "test_util.h"

namespace pagoda::gguf {
namespace {

using testing::AppendString;
using testing::AppendU32;
using testing::AppendU64;
using testing::Bytes;
using testing::Header;

constexpr uint32_t kArray = static_cast<uint32_t>(ValueType::kArray);
constexpr uint32_t kInt32 = static_cast<uint32_t>(ValueType::kInt32);

StatusOr<std::unique_ptr<GgufFile>> Parse(Bytes bytes) { return GgufFile::FromBytes(std::move(bytes)); }

// One metadata entry "nested": `depth` arrays inside each other around one int32.
Bytes NestedArrays(int depth) {
  Bytes b = Header(3, 0, 1);
  AppendString(b, "nested");
  AppendU32(b, kArray);
  for (int level = 1; level < depth; ++level) {
    AppendU32(b, kArray);  // element type
    AppendU64(b, 1);       // one element
  }
  AppendU32(b, kInt32);
  AppendU64(b, 1);
  AppendU32(b, 42);
  return b;
}

// One F32 tensor "t" of `n` elements at offset 0, followed by `data_bytes`
// bytes of data (n * 4 for a complete file).
Bytes OneF32Tensor(uint64_t n, size_t data_bytes) {
  Bytes b = Header(3, 1, 0);
  AppendString(b, "t");
  AppendU32(b, 1);
  AppendU64(b, n);
  AppendU32(b, static_cast<uint32_t>(DType::kF32));
  AppendU64(b, 0);
  b.resize((b.size() + 31) / 32 * 32);
  b.resize(b.size() + data_bytes, 0xab);
  return b;
}

TEST(gguf_synthetic, HeaderOnlyFileIsValid) {
  auto file = Parse(Header(3, 0, 0));
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_TRUE((*file)->metadata().empty());
  EXPECT_TRUE((*file)->tensors().empty());
  EXPECT_EQ((*file)->alignment(), 32u);
}

TEST(gguf_synthetic, TooShortForAHeader) {
  for (Bytes bytes : {Bytes{}, Bytes{'G', 'G', 'U'}, Bytes{'G', 'G', 'U', 'F', 3, 0}}) {
    auto file = Parse(bytes);
    ASSERT_FALSE(file.ok());
    EXPECT_EQ(file.status().code(), StatusCode::kDataLoss);
    EXPECT_NE(file.status().message().find("GGUF header: truncated"), std::string::npos) << file.status().message();
  }
}

TEST(gguf_synthetic, EmptyArrays) {
  Bytes b = Header(3, 0, 2);
  AppendString(b, "ints");
  AppendU32(b, kArray);
  AppendU32(b, kInt32);
  AppendU64(b, 0);
  AppendString(b, "strings");
  AppendU32(b, kArray);
  AppendU32(b, static_cast<uint32_t>(ValueType::kString));
  AppendU64(b, 0);
  auto file = Parse(b);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_TRUE((*file)->GetIntArray("ints")->empty());
  EXPECT_TRUE((*file)->GetStringArray("strings")->empty());
}

TEST(gguf_synthetic, ArraysNestUpToTheDepthLimit) {
  auto ok = Parse(NestedArrays(kMaxArrayDepth));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  Value v = *(*ok)->Find("nested");
  for (int level = 1; level < kMaxArrayDepth; ++level) {
    ASSERT_EQ(v.element_type(), ValueType::kArray);
    ASSERT_EQ(v.size(), 1u);
    v = v.at(0);
  }
  EXPECT_EQ(v.element_type(), ValueType::kInt32);
  EXPECT_EQ(v.at(0).AsInt(), 42);

  auto deep = Parse(NestedArrays(kMaxArrayDepth + 1));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(deep.status().message().find("metadata key 'nested': arrays nested more than 8 deep"), std::string::npos)
      << deep.status().message();
}

TEST(gguf_synthetic, HugeNestedArrayCountIsBoundedByFileSize) {
  Bytes b = Header(3, 0, 1);
  AppendString(b, "nested");
  AppendU32(b, kArray);
  AppendU32(b, kArray);
  AppendU64(b, uint64_t{1} << 40);
  auto file = Parse(b);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().message().find("array length 1099511627776 at offset 46 exceeds"), std::string::npos)
      << file.status().message();
}

TEST(gguf_synthetic, AlignmentMayBeAnyUnsignedType) {
  Bytes b = Header(3, 0, 1);
  AppendString(b, "general.alignment");
  AppendU32(b, static_cast<uint32_t>(ValueType::kUint64));
  AppendU64(b, 16);
  auto file = Parse(b);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ((*file)->alignment(), 16u);
}

TEST(gguf_synthetic, TensorDataMayEndExactlyAtEndOfFile) {
  auto file = Parse(OneF32Tensor(4, 16));
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  const TensorInfo& t = (*file)->tensors().at(0);
  EXPECT_EQ(t.nbytes, 16u);
  EXPECT_EQ((*file)->data_offset() + t.nbytes, (*file)->file_size());
  EXPECT_EQ(t.data[15], 0xab);
}

TEST(gguf_synthetic, TensorDataOneByteShort) {
  auto file = Parse(OneF32Tensor(4, 15));
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(file.status().message(), "tensor 't': data [64, 80) extends past end of file (size 79)");
}

}  // namespace
}  // namespace pagoda::gguf
