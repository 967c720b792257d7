// The GGUF writer against the reference writer (the gguf package, which made
// the fixtures): rewriting a fixture's metadata and tensors must give back
// the fixture byte for byte.
#include "pagoda/formats/gguf/gguf_writer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "pagoda/formats/gguf/gguf_file.h"

namespace pagoda::gguf {
namespace {

std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<TensorToWrite> TableOf(const GgufFile& file) {
  std::vector<TensorToWrite> table;
  for (const TensorInfo& t : file.tensors()) table.push_back({t.name, t.dtype, t.shape});
  return table;
}

Status Rewrite(const GgufFile& file, const std::string& out) {
  return WriteGguf(out, file.metadata(), TableOf(file), [&](size_t i, std::vector<uint8_t>& bytes) {
    const TensorInfo& t = file.tensors()[i];
    bytes.assign(t.data, t.data + t.nbytes);
    return Status::Ok();
  });
}

class gguf_writer : public ::testing::TestWithParam<const char*> {};

TEST_P(gguf_writer, RewritingAFixtureGivesItsBytes) {
  const std::string in = std::string(PAGODA_FIXTURES_DIR) + "/gguf/" + GetParam();
  auto file = GgufFile::Open(in);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  const std::string out = ::testing::TempDir() + "/rewritten_" + GetParam();
  ASSERT_TRUE(Rewrite(**file, out).ok());
  EXPECT_EQ(ReadBytes(out), ReadBytes(in));
  std::filesystem::remove(out);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, gguf_writer, ::testing::Values("all_types_v3.gguf", "block_types.gguf"));

TEST(gguf_writer_errors, ATensorOfTheWrongSizeFailsAndLeavesNoFile) {
  const std::string out = ::testing::TempDir() + "/wrong_size.gguf";
  const std::vector<TensorToWrite> table = {{"t", DType::kF32, {4, 2}}};
  const Status s = WriteGguf(out, {}, table, [](size_t, std::vector<uint8_t>& bytes) {
    bytes.assign(7, 0);
    return Status::Ok();
  });
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_NE(s.message().find("tensor t got 7 bytes, its type and shape take 32"), std::string::npos) << s.message();
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(gguf_writer_errors, AnUnwritablePathIsAClearError) {
  const Status s = WriteGguf("/nonexistent-dir/x.gguf", {}, {}, [](size_t, std::vector<uint8_t>&) { return Status::Ok(); });
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("/nonexistent-dir/x.gguf"), std::string::npos);
}

}  // namespace
}  // namespace pagoda::gguf
