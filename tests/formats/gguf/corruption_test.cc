// Damaged copies of the fixture: every truncation and a catalogue of field
// corruptions must give a specific error, never a crash (run under ASan too).
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <sstream>
#include <string>

#include "pagoda/formats/gguf/gguf_file.h"
#include "test_util.h"

namespace pagoda::gguf {
namespace {

using testing::Bytes;
using testing::FixturePath;
using testing::GetU32;
using testing::GetU64;
using testing::OffsetAfterString;
using testing::PutU32;
using testing::PutU64;
using testing::ReadFile;

Bytes Fixture() { return ReadFile(FixturePath("all_types_v3.gguf")); }

// Offsets of a tensor info's fields, found after its name.
struct TensorFields {
  size_t n_dims;
  size_t dims;
  size_t type;
  size_t offset;
};

TensorFields FieldsOf(const Bytes& bytes, std::string_view tensor) {
  TensorFields f;
  f.n_dims = OffsetAfterString(bytes, tensor);
  f.dims = f.n_dims + 4;
  f.type = f.dims + 8 * GetU32(bytes, f.n_dims);
  f.offset = f.type + 4;
  return f;
}

// A key's value type sits right after the key; its value right after that.
size_t ValueTypeAt(const Bytes& bytes, std::string_view key) { return OffsetAfterString(bytes, key); }
size_t ValueAt(const Bytes& bytes, std::string_view key) { return ValueTypeAt(bytes, key) + 4; }

TEST(gguf_corruption, EveryTruncationFailsUntilTheLastTensorIsComplete) {
  const Bytes full = Fixture();
  auto whole = GgufFile::FromBytes(full);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  // Bytes after the last tensor are padding the loader need not see.
  uint64_t data_end = 0;
  for (const TensorInfo& t : (*whole)->tensors()) {
    data_end = std::max(data_end, (*whole)->data_offset() + t.offset + t.nbytes);
  }
  ASSERT_LT(data_end, full.size());
  for (size_t n = 0; n < full.size(); ++n) {
    auto file = GgufFile::FromBytes(Bytes(full.begin(), full.begin() + static_cast<ptrdiff_t>(n)));
    if (n < data_end) {
      ASSERT_FALSE(file.ok()) << "truncated to " << n << " bytes";
      ASSERT_EQ(file.status().code(), StatusCode::kDataLoss) << n << ": " << file.status().ToString();
    } else {
      ASSERT_TRUE(file.ok()) << n << ": " << file.status().ToString();
    }
  }
}

struct Corruption {
  const char* name;
  std::function<void(Bytes&)> apply;
  StatusCode code;
  const char* message;  // a part the error message must contain
};

std::vector<Corruption> Corruptions() {
  constexpr uint64_t kHuge = uint64_t{1} << 60;
  return {
      {"bad magic", [](Bytes& b) { b[0] = 'X'; }, StatusCode::kDataLoss, "bad magic 0x58475546"},
      {"version 1", [](Bytes& b) { PutU32(b, 4, 1); }, StatusCode::kUnimplemented, "version 1"},
      {"version 4", [](Bytes& b) { PutU32(b, 4, 4); }, StatusCode::kUnimplemented, "version 4"},
      {"big-endian", [](Bytes& b) { PutU32(b, 4, 0x03000000); }, StatusCode::kUnimplemented, "big-endian"},
      {"huge tensor count", [](Bytes& b) { PutU64(b, 8, kHuge); }, StatusCode::kDataLoss,
       "tensor count 1152921504606846976 exceeds"},
      {"huge metadata count", [](Bytes& b) { PutU64(b, 16, kHuge); }, StatusCode::kDataLoss,
       "metadata entry count 1152921504606846976 exceeds"},
      {"extra metadata entry", [](Bytes& b) { PutU64(b, 16, GetU64(b, 16) + 1); }, StatusCode::kDataLoss,
       "tensor info #0"},
      {"huge key length", [](Bytes& b) { PutU64(b, 24, kHuge); }, StatusCode::kDataLoss,
       "metadata entry #0 key: string length 1152921504606846976 at offset 24 exceeds"},
      {"huge string length", [](Bytes& b) { PutU64(b, ValueAt(b, "test.string"), kHuge); }, StatusCode::kDataLoss,
       "metadata key 'test.string': string length 1152921504606846976"},
      {"huge array length", [](Bytes& b) { PutU64(b, ValueAt(b, "test.array.string") + 4, kHuge); },
       StatusCode::kDataLoss, "metadata key 'test.array.string': array length 1152921504606846976"},
      {"unknown value type", [](Bytes& b) { PutU32(b, ValueTypeAt(b, "test.uint8"), 13); }, StatusCode::kDataLoss,
       "metadata key 'test.uint8': unknown value type 13"},
      {"unknown array element type", [](Bytes& b) { PutU32(b, ValueAt(b, "test.array.int8"), 99); },
       StatusCode::kDataLoss, "'test.array.int8': unknown array element type 99"},
      {"bool not 0 or 1", [](Bytes& b) { b[ValueAt(b, "test.bool_true")] = 2; }, StatusCode::kDataLoss,
       "'test.bool_true': bool value 2"},
      {"bool array element not 0 or 1", [](Bytes& b) { b[ValueAt(b, "test.array.bool") + 12 + 1] = 7; },
       StatusCode::kDataLoss, "'test.array.bool': bool value 7"},
      {"duplicate key",
       [](Bytes& b) {
         const size_t end = OffsetAfterString(b, "test.uint32");
         b[end - 2] = '1';
         b[end - 1] = '6';
       },
       StatusCode::kDataLoss, "metadata key 'test.uint16' appears twice (entries #4 and #6)"},
      {"alignment not a power of two", [](Bytes& b) { PutU32(b, ValueAt(b, "general.alignment"), 48); },
       StatusCode::kDataLoss, "general.alignment is 48, expected a power of two"},
      {"alignment zero", [](Bytes& b) { PutU32(b, ValueAt(b, "general.alignment"), 0); }, StatusCode::kDataLoss,
       "general.alignment is 0"},
      {"negative alignment",
       [](Bytes& b) {
         PutU32(b, ValueTypeAt(b, "general.alignment"), static_cast<uint32_t>(ValueType::kInt32));
         PutU32(b, ValueAt(b, "general.alignment"), static_cast<uint32_t>(-64));
       },
       StatusCode::kDataLoss, "general.alignment is -64, expected a power of two"},
      {"alignment of the wrong type", [](Bytes& b) { PutU32(b, ValueTypeAt(b, "general.alignment"), 6); },
       StatusCode::kDataLoss, "general.alignment has type float32"},
      {"huge tensor name length", [](Bytes& b) { PutU64(b, OffsetAfterString(b, "tensor.f32") - 18, kHuge); },
       StatusCode::kDataLoss, "tensor info #0 name: string length"},
      {"zero dimensions", [](Bytes& b) { PutU32(b, FieldsOf(b, "tensor.f32").n_dims, 0); }, StatusCode::kDataLoss,
       "tensor 'tensor.f32': 0 dimensions, expected 1 to 4"},
      {"five dimensions", [](Bytes& b) { PutU32(b, FieldsOf(b, "tensor.f32").n_dims, 5); }, StatusCode::kDataLoss,
       "tensor 'tensor.f32': 5 dimensions"},
      {"zero dim", [](Bytes& b) { PutU64(b, FieldsOf(b, "tensor.f16").dims + 8, 0); }, StatusCode::kDataLoss,
       "tensor 'tensor.f16': dimension 1 is 0"},
      {"dim above int64", [](Bytes& b) { PutU64(b, FieldsOf(b, "tensor.f16").dims, uint64_t{1} << 63); },
       StatusCode::kDataLoss, "tensor 'tensor.f16': dimension 0 is 9223372036854775808"},
      {"element count overflow",
       [](Bytes& b) {
         const size_t dims = FieldsOf(b, "tensor.f16").dims;
         for (int i = 0; i < 4; ++i) PutU64(b, dims + 8 * i, uint64_t{1} << 20);
       },
       StatusCode::kDataLoss, "tensor 'tensor.f16': element count overflows"},
      {"byte size overflow", [](Bytes& b) { PutU64(b, FieldsOf(b, "tensor.f32").dims, uint64_t{1} << 60); },
       StatusCode::kDataLoss, "tensor 'tensor.f32': byte size overflows"},
      {"row not whole blocks", [](Bytes& b) { PutU64(b, FieldsOf(b, "tensor.q4_0").dims, 48); },
       StatusCode::kDataLoss, "tensor 'tensor.q4_0': row length 48 is not a multiple of the Q4_0 block size 32"},
      {"unknown tensor type", [](Bytes& b) { PutU32(b, FieldsOf(b, "tensor.f32").type, 99); },
       StatusCode::kUnimplemented, "tensor 'tensor.f32': tensor type id 99 is not supported"},
      {"unsupported GGML type IQ2_XXS", [](Bytes& b) { PutU32(b, FieldsOf(b, "tensor.q8_0").type, 16); },
       StatusCode::kUnimplemented, "tensor 'tensor.q8_0': tensor type id 16 is not supported (Pagoda reads F32,"},
      {"activation-only type Q8_1", [](Bytes& b) { PutU32(b, FieldsOf(b, "tensor.q8_0").type, 9); },
       StatusCode::kUnimplemented, "tensor type id 9"},
      {"misaligned offset", [](Bytes& b) { PutU64(b, FieldsOf(b, "tensor.q8_0").offset, 257); },
       StatusCode::kDataLoss, "tensor 'tensor.q8_0': offset 257 is not a multiple of the alignment 64"},
      {"offset past end of file", [](Bytes& b) { PutU64(b, FieldsOf(b, "tensor.q4_1").offset, 1 << 20); },
       StatusCode::kDataLoss, "tensor 'tensor.q4_1': data [1050432, 1050472) extends past end of file (size 2432)"},
      {"offset overflow", [](Bytes& b) { PutU64(b, FieldsOf(b, "tensor.q4_1").offset, ~uint64_t{63}); },
       StatusCode::kDataLoss, "tensor 'tensor.q4_1': offset 18446744073709551552 plus 40 bytes overflows"},
      {"bigger type runs past end", [](Bytes& b) { PutU32(b, FieldsOf(b, "tensor.q4_1").type, 0); },
       StatusCode::kDataLoss, "tensor 'tensor.q4_1': data [2368, 2624) extends past end of file"},
      {"duplicate tensor name", [](Bytes& b) { b[OffsetAfterString(b, "tensor.q4_1") - 1] = '0'; },
       StatusCode::kDataLoss, "tensor 'tensor.q4_0' appears twice (tensor infos #4 and #5)"},
  };
}

TEST(gguf_corruption, EachCorruptFieldHasASpecificError) {
  const Bytes fixture = Fixture();
  for (const Corruption& c : Corruptions()) {
    SCOPED_TRACE(c.name);
    Bytes bytes = fixture;
    c.apply(bytes);
    ASSERT_NE(bytes, fixture);
    auto file = GgufFile::FromBytes(std::move(bytes));
    ASSERT_FALSE(file.ok());
    EXPECT_EQ(file.status().code(), c.code) << file.status().ToString();
    EXPECT_NE(file.status().message().find(c.message), std::string::npos) << file.status().message();
  }
}

// Random byte damage: whatever the result, no crash, and a file that still
// parses must be fully usable (the summary walks every value and tensor).
TEST(gguf_corruption, RandomByteFlipsNeverCrash) {
  const Bytes fixture = Fixture();
  std::mt19937 rng(42);
  std::uniform_int_distribution<size_t> position(0, fixture.size() - 1);
  std::uniform_int_distribution<int> byte(0, 255);
  int parsed = 0;
  for (int iteration = 0; iteration < 3000; ++iteration) {
    Bytes bytes = fixture;
    const int flips = 1 + iteration % 4;
    for (int i = 0; i < flips; ++i) bytes[position(rng)] = static_cast<uint8_t>(byte(rng));
    auto file = GgufFile::FromBytes(std::move(bytes));
    if (!file.ok()) {
      EXPECT_FALSE(file.status().message().empty());
      continue;
    }
    ++parsed;
    std::ostringstream out;
    PrintGgufSummary(**file, out);
    for (const TensorInfo& t : (*file)->tensors()) {
      EXPECT_LE((*file)->data_offset() + t.offset + t.nbytes, (*file)->file_size());
      // Under ASan, touching both ends proves `data` lies inside the buffer.
      volatile uint8_t ends = t.data[0] ^ t.data[t.nbytes - 1];
      (void)ends;
    }
  }
  // Most flips land in tensor data or padding, which the loader does not
  // interpret; if none parse, the damage model is off.
  EXPECT_GT(parsed, 0);
}

}  // namespace
}  // namespace pagoda::gguf
