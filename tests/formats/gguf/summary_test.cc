// PrintGgufSummary, the `pagoda inspect` output.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "pagoda/formats/gguf/gguf_file.h"
#include "test_util.h"

namespace pagoda::gguf {
namespace {

using testing::AppendString;
using testing::AppendU32;
using testing::Bytes;
using testing::FixturePath;
using testing::Header;
using testing::ReadFile;

std::vector<std::string> SummaryLines(const GgufFile& file) {
  std::ostringstream out;
  PrintGgufSummary(file, out);
  std::vector<std::string> lines;
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

::testing::AssertionResult HasLine(const std::vector<std::string>& lines, const std::string& expected) {
  for (const std::string& line : lines) {
    if (line == expected) return ::testing::AssertionSuccess();
  }
  std::string all;
  for (const std::string& line : lines) all += line + "\n";
  return ::testing::AssertionFailure() << "no line \"" << expected << "\" in:\n" << all;
}

// The whitespace-separated fields of the line that starts with `prefix`.
std::vector<std::string> FieldsOfLine(const std::vector<std::string>& lines, const std::string& prefix) {
  for (const std::string& line : lines) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::istringstream in(line);
    std::vector<std::string> fields;
    for (std::string f; in >> f;) fields.push_back(f);
    return fields;
  }
  return {};
}

TEST(gguf_summary, FixtureShowsEveryKindOfValueAndTheTensorTable) {
  auto file = GgufFile::Open(FixturePath("all_types_v3.gguf"));
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  const auto lines = SummaryLines(**file);
  EXPECT_TRUE(HasLine(lines, "GGUF version 3, 2432 bytes, alignment 64, tensor data at offset 1856"));
  EXPECT_TRUE(HasLine(lines, "metadata: 32 entries"));
  EXPECT_TRUE(HasLine(lines, "  general.architecture: string = \"pagoda-test\""));
  EXPECT_TRUE(HasLine(lines, "  test.uint8: uint8 = 200"));
  EXPECT_TRUE(HasLine(lines, "  test.int64: int64 = -9223372036854775808"));
  EXPECT_TRUE(HasLine(lines, "  test.uint64: uint64 = 18446744073709551615"));
  EXPECT_TRUE(HasLine(lines, "  test.float32: float32 = 3.14159"));
  EXPECT_TRUE(HasLine(lines, "  test.float64: float64 = 2.718281828459045"));
  EXPECT_TRUE(HasLine(lines, "  test.bool_true: bool = true"));
  EXPECT_TRUE(HasLine(lines, "  test.string: string = \"h\u00e9llo, GGUF \u2713\""));
  EXPECT_TRUE(HasLine(lines, "  test.array.float32: array<float32>[3] = [0.5, -1.25, 1e-05]"));
  EXPECT_TRUE(HasLine(lines, "  test.array.bool: array<bool>[3] = [true, false, true]"));
  EXPECT_TRUE(HasLine(
      lines, "  test.array.string: array<string>[4] = [\"a\", \"\", \"\u00fcn\u00ef\", \"token with spaces\"]"));
  EXPECT_TRUE(HasLine(lines, "  test.array.nested_int: array<array>[3] = [[1, 2, 3], [4], [-5, 6]]"));
  EXPECT_TRUE(HasLine(lines, "  test.array.nested_deep: array<array>[2] = [[[1], [2, 3]], [[4]]]"));
  EXPECT_TRUE(HasLine(lines, "tensors: 6"));
  EXPECT_EQ(FieldsOfLine(lines, "  name"), (std::vector<std::string>{"name", "type", "shape", "offset", "bytes"}));
  EXPECT_EQ(FieldsOfLine(lines, "  tensor.q8_0 "),
            (std::vector<std::string>{"tensor.q8_0", "Q8_0", "[64,", "2]", "256", "136"}));
  EXPECT_EQ(FieldsOfLine(lines, "  tensor.f16 "),
            (std::vector<std::string>{"tensor.f16", "F16", "[8,", "2,", "1,", "2]", "128", "64"}));
  // 24 + 32 + 32 + 128 + 96 + 64 elements; 96 + 64 + 64 + 136 + 54 + 40 bytes.
  EXPECT_TRUE(HasLine(lines, "total: 6 tensors, 376 elements, 454 bytes"));
  // The same byte sizes by type, the largest first (ties by name).
  EXPECT_TRUE(HasLine(lines,
                      "by type: Q8_0 1 tensor 136 bytes; F32 1 tensor 96 bytes; BF16 1 tensor 64 bytes; "
                      "F16 1 tensor 64 bytes; Q4_0 1 tensor 54 bytes; Q4_1 1 tensor 40 bytes"));
}

TEST(gguf_summary, BlockTypesFixtureNamesEveryType) {
  auto file = GgufFile::Open(FixturePath("block_types.gguf"));
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  const auto lines = SummaryLines(**file);
  // Sizes from gguf-py's table (block_types.json): 2 Q6_K blocks of 210 bytes, and so on.
  EXPECT_EQ(FieldsOfLine(lines, "  tensor.iq4_xs "),
            (std::vector<std::string>{"tensor.iq4_xs", "IQ4_XS", "[256,", "1]", "1760", "136"}));
  EXPECT_TRUE(HasLine(lines,
                      "by type: Q4_K 1 tensor 432 bytes; Q6_K 1 tensor 420 bytes; Q3_K 1 tensor 220 bytes; "
                      "Q5_K 1 tensor 176 bytes; Q2_K 1 tensor 168 bytes; IQ4_XS 1 tensor 136 bytes; "
                      "Q5_0 1 tensor 88 bytes; Q5_1 1 tensor 72 bytes; IQ4_NL 1 tensor 36 bytes"));
}

TEST(gguf_summary, LongStringsAreAbbreviatedAndEscaped) {
  Bytes b = Header(3, 0, 2);
  AppendString(b, "long");
  AppendU32(b, static_cast<uint32_t>(ValueType::kString));
  // 62 ASCII bytes then a 3-byte character straddling the 64-byte cut.
  AppendString(b, std::string(62, 'a') + "\u2713" + std::string(100, 'b'));
  AppendString(b, "escaped");
  AppendU32(b, static_cast<uint32_t>(ValueType::kString));
  AppendString(b, std::string("q\"\\\n\t\x01", 6));
  auto file = GgufFile::FromBytes(b);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  const auto lines = SummaryLines(**file);
  EXPECT_TRUE(HasLine(lines, "  long: string = \"" + std::string(62, 'a') + "\"... (165 bytes)"));
  EXPECT_TRUE(HasLine(lines, "  escaped: string = \"q\\\"\\\\\\n\\t\\x01\""));
}

TEST(gguf_summary, ModelVocabIsAbbreviated) {
  if (!std::filesystem::exists(PAGODA_TEST_MODEL)) GTEST_SKIP() << "model not installed: " << PAGODA_TEST_MODEL;
  auto file = GgufFile::Open(PAGODA_TEST_MODEL);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  const auto lines = SummaryLines(**file);
  EXPECT_TRUE(HasLine(lines, "  llama.block_count: uint32 = 30"));
  EXPECT_TRUE(HasLine(lines, "  llama.attention.layer_norm_rms_epsilon: float32 = 1e-05"));
  EXPECT_TRUE(HasLine(lines,
                      "  tokenizer.ggml.tokens: array<string>[49152] = [\"<|endoftext|>\", \"<|im_start|>\", "
                      "\"<|im_end|>\", \"<repo_name>\", \"<reponame>\", \"<file_sep>\", \"<filename>\", "
                      "\"<gh_stars>\", ... 49144 more]"));
  EXPECT_TRUE(HasLine(lines, "tensors: 272"));
  const auto embd = FieldsOfLine(lines, "  token_embd.weight ");
  ASSERT_EQ(embd.size(), 6u);
  EXPECT_EQ(embd[1], "Q8_0");
  EXPECT_EQ(embd[5], "30081024");
}

}  // namespace
}  // namespace pagoda::gguf
