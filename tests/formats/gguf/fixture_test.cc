// The loader against fixtures written by the reference Python writer, and
// the expected values recorded next to them (tests/fixtures/gguf).
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "pagoda/formats/gguf/gguf_file.h"
#include "test_util.h"

namespace pagoda::gguf {
namespace {

using nlohmann::json;
using testing::Bytes;
using testing::FixturePath;
using testing::ReadFile;

json LoadSidecar() {
  const Bytes text = ReadFile(FixturePath("all_types.json"));
  return json::parse(text.begin(), text.end());
}

std::unique_ptr<GgufFile> OpenOrDie(const std::string& path) {
  auto file = GgufFile::Open(path);
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  return file.ok() ? std::move(file).value() : nullptr;
}

std::string Hex(const uint8_t* data, uint64_t n) {
  std::string out;
  char buf[3];
  for (uint64_t i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof(buf), "%02x", data[i]);
    out += buf;
  }
  return out;
}

// Compares a scalar (or the element of an array) with its sidecar value.
void ExpectScalar(const Value& value, const json& expected, const std::string& where) {
  SCOPED_TRACE(where);
  switch (value.type()) {
    case ValueType::kString: EXPECT_EQ(*value.AsString(), expected.get<std::string>()); break;
    case ValueType::kBool: EXPECT_EQ(*value.AsBool(), expected.get<bool>()); break;
    case ValueType::kFloat32:
    case ValueType::kFloat64: EXPECT_EQ(*value.AsFloat(), expected.get<double>()); break;
    default:
      ASSERT_TRUE(IsIntegerType(value.type()));
      if (expected.is_number_unsigned()) {
        EXPECT_EQ(value.AsUint(), expected.get<uint64_t>());
      } else {
        EXPECT_EQ(value.AsInt(), expected.get<int64_t>());
      }
  }
}

// `expected` is {"type", "value"} and, for arrays, "element_type"; elements
// of arrays of arrays are such nodes themselves.
void ExpectValue(const Value& value, const json& expected, const std::string& where) {
  ASSERT_EQ(ValueTypeName(value.type()), expected["type"].get<std::string>()) << where;
  if (value.type() != ValueType::kArray) {
    ExpectScalar(value, expected["value"], where);
    return;
  }
  ASSERT_EQ(ValueTypeName(value.element_type()), expected["element_type"].get<std::string>()) << where;
  const json& elements = expected["value"];
  ASSERT_EQ(value.size(), elements.size()) << where;
  for (uint64_t i = 0; i < value.size(); ++i) {
    const std::string element_where = where + "[" + std::to_string(i) + "]";
    if (value.element_type() == ValueType::kArray) {
      ExpectValue(value.at(i), elements[i], element_where);
    } else {
      ExpectScalar(value.at(i), elements[i], element_where);
    }
  }
}

void ExpectMatchesSidecar(const GgufFile& file, const json& expected) {
  EXPECT_EQ(file.alignment(), expected["alignment"].get<uint64_t>());
  EXPECT_EQ(file.data_offset(), expected["data_offset"].get<uint64_t>());
  EXPECT_EQ(file.file_size(), expected["file_size"].get<uint64_t>());

  const json& metadata = expected["metadata"];
  ASSERT_EQ(file.metadata().size(), metadata.size());
  for (size_t i = 0; i < metadata.size(); ++i) {
    const auto& [key, value] = file.metadata()[i];
    ASSERT_EQ(key, metadata[i]["key"].get<std::string>()) << "entry #" << i;
    ExpectValue(value, metadata[i], key);
    EXPECT_EQ(file.Find(key), &value);
  }

  const json& tensors = expected["tensors"];
  ASSERT_EQ(file.tensors().size(), tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorInfo& t = file.tensors()[i];
    SCOPED_TRACE(t.name);
    EXPECT_EQ(t.name, tensors[i]["name"].get<std::string>());
    EXPECT_EQ(static_cast<uint32_t>(t.dtype), tensors[i]["type"].get<uint32_t>());
    EXPECT_EQ(t.shape, tensors[i]["shape"].get<std::vector<int64_t>>());
    EXPECT_EQ(t.offset, tensors[i]["offset"].get<uint64_t>());
    EXPECT_EQ(t.nbytes, tensors[i]["nbytes"].get<uint64_t>());
    EXPECT_EQ(Hex(t.data, t.nbytes), tensors[i]["data_hex"].get<std::string>());
    EXPECT_EQ(file.FindTensor(t.name), &t);
  }
}

TEST(gguf_fixture, V3MatchesReferenceWriter) {
  auto file = OpenOrDie(FixturePath("all_types_v3.gguf"));
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(file->version(), 3u);
  ExpectMatchesSidecar(*file, LoadSidecar());
}

TEST(gguf_fixture, V2MatchesReferenceWriter) {
  auto file = GgufFile::FromBytes(ReadFile(FixturePath("all_types_v2.gguf")));
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ((*file)->version(), 2u);
  ExpectMatchesSidecar(**file, LoadSidecar());
}

// Every block type Pagoda reads beyond all_types: gguf-py wrote random
// blocks of each and read back the table (make_block_types_fixture.py).
TEST(gguf_fixture, BlockTypesMatchReferenceWriter) {
  auto file = OpenOrDie(FixturePath("block_types.gguf"));
  ASSERT_NE(file, nullptr);
  const Bytes text = ReadFile(FixturePath("block_types.json"));
  const json tensors = json::parse(text.begin(), text.end())["tensors"];
  ASSERT_EQ(file->tensors().size(), tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorInfo& t = file->tensors()[i];
    SCOPED_TRACE(t.name);
    EXPECT_EQ(t.name, tensors[i]["name"].get<std::string>());
    EXPECT_EQ(static_cast<uint32_t>(t.dtype), tensors[i]["type"].get<uint32_t>());
    EXPECT_EQ(DTypeName(t.dtype), tensors[i]["type_name"].get<std::string>());
    EXPECT_EQ(t.shape, tensors[i]["shape"].get<std::vector<int64_t>>());
    EXPECT_EQ(t.offset, tensors[i]["offset"].get<uint64_t>());
    EXPECT_EQ(t.nbytes, tensors[i]["nbytes"].get<uint64_t>());
    EXPECT_EQ(Hex(t.data, t.nbytes), tensors[i]["data_hex"].get<std::string>());
  }
}

TEST(gguf_fixture, MissingFileIsNotFound) {
  auto file = GgufFile::Open(FixturePath("no_such_file.gguf"));
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), StatusCode::kNotFound);
  EXPECT_NE(file.status().message().find("no_such_file.gguf"), std::string::npos);
}

TEST(gguf_fixture, ParseErrorsFromOpenNameThePath) {
  auto file = GgufFile::Open(FixturePath("all_types.json"));
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(file.status().message().find("all_types.json"), std::string::npos) << file.status().message();
  EXPECT_NE(file.status().message().find("bad magic"), std::string::npos) << file.status().message();
}

class gguf_getters : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = OpenOrDie(FixturePath("all_types_v3.gguf"));
    ASSERT_NE(file_, nullptr);
  }
  template <typename T>
  static void ExpectError(const StatusOr<T>& result, StatusCode code, std::string_view part) {
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), code) << result.status().ToString();
    EXPECT_NE(result.status().message().find(part), std::string::npos) << result.status().message();
  }
  std::unique_ptr<GgufFile> file_;
};

TEST_F(gguf_getters, Scalars) {
  EXPECT_EQ(*file_->GetString("general.architecture"), "pagoda-test");
  EXPECT_EQ(*file_->GetString("test.string_empty"), "");
  EXPECT_EQ(*file_->GetUint("test.uint64"), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(*file_->GetUint("test.uint8"), 200u);
  EXPECT_EQ(*file_->GetUint("general.alignment"), 64u);
  EXPECT_EQ(*file_->GetInt("test.int64"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(*file_->GetInt("test.int8"), -100);
  EXPECT_EQ(*file_->GetInt("test.uint64_small"), 7);
  EXPECT_EQ(*file_->GetInt("test.uint32"), 4000000000);
  EXPECT_EQ(*file_->GetFloat("test.float32"), static_cast<double>(3.14159f));
  EXPECT_EQ(*file_->GetFloat("test.float64"), 2.718281828459045);
  EXPECT_EQ(*file_->GetFloat("test.int32"), -2000000000.0);
  EXPECT_TRUE(*file_->GetBool("test.bool_true"));
  EXPECT_FALSE(*file_->GetBool("test.bool_false"));
}

TEST_F(gguf_getters, Arrays) {
  EXPECT_EQ(*file_->GetStringArray("test.array.string"),
            (std::vector<std::string>{"a", "", "\u00fcn\u00ef", "token with spaces"}));
  EXPECT_EQ(*file_->GetIntArray("test.array.int8"), (std::vector<int64_t>{-128, 0, 127}));
  EXPECT_EQ(*file_->GetIntArray("test.array.uint32"), (std::vector<int64_t>{1, 4294967295}));
  EXPECT_EQ(*file_->GetIntArray("test.array.int64"),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}));
  EXPECT_EQ(*file_->GetFloatArray("test.array.float32"),
            (std::vector<double>{0.5, -1.25, static_cast<double>(1e-5f)}));
  EXPECT_EQ(*file_->GetFloatArray("test.array.float64"), (std::vector<double>{1.5, -2.0e300}));
  EXPECT_EQ(*file_->GetFloatArray("test.array.int16"), (std::vector<double>{-32768, 32767}));
  // The zero-copy view used for large vocab arrays.
  const Value* tokens = file_->Find("test.array.string");
  ASSERT_NE(tokens, nullptr);
  ASSERT_EQ(tokens->strings().size(), 4u);
  EXPECT_EQ(tokens->strings()[3], "token with spaces");
}

TEST_F(gguf_getters, MissingKeyIsNotFound) {
  EXPECT_EQ(file_->Find("no.such.key"), nullptr);
  ExpectError(file_->GetString("no.such.key"), StatusCode::kNotFound, "'no.such.key'");
  ExpectError(file_->GetIntArray("no.such.key"), StatusCode::kNotFound, "'no.such.key'");
}

TEST_F(gguf_getters, WrongTypeNamesKeyAndActualType) {
  ExpectError(file_->GetString("test.uint8"), StatusCode::kInvalidArgument, "'test.uint8' has type uint8");
  ExpectError(file_->GetUint("test.string"), StatusCode::kInvalidArgument, "'test.string' has type string");
  ExpectError(file_->GetInt("test.float32"), StatusCode::kInvalidArgument, "has type float32");
  ExpectError(file_->GetFloat("test.bool_true"), StatusCode::kInvalidArgument, "has type bool");
  ExpectError(file_->GetBool("test.uint8"), StatusCode::kInvalidArgument, "has type uint8");
  ExpectError(file_->GetStringArray("test.array.int32"), StatusCode::kInvalidArgument, "has type array<int32>");
  ExpectError(file_->GetStringArray("test.string"), StatusCode::kInvalidArgument, "has type string");
  ExpectError(file_->GetIntArray("test.array.float32"), StatusCode::kInvalidArgument, "has type array<float32>");
  ExpectError(file_->GetIntArray("test.array.nested_int"), StatusCode::kInvalidArgument, "has type array<array>");
  ExpectError(file_->GetFloatArray("test.array.string"), StatusCode::kInvalidArgument, "has type array<string>");
}

TEST_F(gguf_getters, ValuesThatDoNotFitAreOutOfRange) {
  ExpectError(file_->GetUint("test.int8"), StatusCode::kOutOfRange, "'test.int8' is -100");
  ExpectError(file_->GetInt("test.uint64"), StatusCode::kOutOfRange, "'test.uint64' is 18446744073709551615");
  ExpectError(file_->GetIntArray("test.array.uint64"), StatusCode::kOutOfRange, "'test.array.uint64' element 1");
}

TEST_F(gguf_getters, FindTensor) {
  const TensorInfo* t = file_->FindTensor("tensor.q4_1");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->dtype, DType::kQ4_1);
  EXPECT_EQ(t->num_elements(), 64);
  EXPECT_EQ(file_->FindTensor("tensor.q4_2"), nullptr);
}

}  // namespace
}  // namespace pagoda::gguf
