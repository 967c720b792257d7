// Pagoda's weight quantizers against llama.cpp's own ggml: the bytes of
// ggml_quantize_chunk with no importance matrix (what llama-quantize writes)
// for the rows in tests/fixtures/quantize/ (made by make_fixtures.py there)
// must come out identical. Then two properties of our own: the result
// dequantizes to near the input, and bad row lengths are refused.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/quantize/weight_quantizer.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda::quantize {
namespace {

const std::string kDir = std::string(PAGODA_FIXTURES_DIR) + "/quantize/";

std::vector<char> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot open " << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const nlohmann::json& Index() {
  static const nlohmann::json index = [] {
    const std::vector<char> text = ReadFile(kDir + "index.json");
    return nlohmann::json::parse(text.begin(), text.end());
  }();
  return index;
}

struct Input {
  std::vector<float> x;
  int64_t rows = 0;
  int64_t n_per_row = 0;
};

const Input& FixtureInput() {
  static const Input input = [] {
    Input in;
    in.rows = Index()["input"]["rows"].get<int64_t>();
    in.n_per_row = Index()["input"]["n_per_row"].get<int64_t>();
    const std::vector<char> bytes = ReadFile(kDir + Index()["input"]["file"].get<std::string>());
    in.x.resize(bytes.size() / sizeof(float));
    std::memcpy(in.x.data(), bytes.data(), in.x.size() * sizeof(float));
    return in;
  }();
  return input;
}

nlohmann::json TypeEntry(const std::string& name) {
  for (const nlohmann::json& e : Index()["types"]) {
    if (e["type"] == name) return e;
  }
  return {};
}

std::vector<char> Quantize(DType t, const std::vector<float>& x, int64_t rows, int64_t n_per_row) {
  std::vector<char> out(static_cast<size_t>(rows * DTypeRowBytes(t, n_per_row)));
  QuantizeWeightRows(t, x.data(), rows, n_per_row, out.data());
  return out;
}

// The 256-element segment (index.json "segments") a byte of the output
// belongs to, to say which kind of row a mismatch is in.
std::string SegmentOf(DType t, size_t byte) {
  const int64_t elem = static_cast<int64_t>(byte) / DTypeBlockBytes(t) * DTypeBlockElems(t);
  const int64_t segment = elem / Index()["segment_elems"].get<int64_t>();
  return "segment " + std::to_string(segment) + " (" + Index()["segments"][segment].get<std::string>() + ")";
}

const std::string kTypes[] = {"F32",  "F16",  "BF16", "Q4_0", "Q4_1", "Q5_0",   "Q5_1",  "Q8_0",
                               "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K", "IQ4_NL", "IQ4_XS"};

class GgmlParityTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GgmlParityTest, BytesEqualGgmlQuantizeChunk) {
  const std::string name = GetParam();
  const nlohmann::json entry = TypeEntry(name);
  ASSERT_FALSE(entry.is_null()) << name << " is not in the fixture index";
  const auto type = static_cast<DType>(entry["ggml_id"].get<uint32_t>());
  ASSERT_EQ(DTypeName(type), name);
  ASSERT_TRUE(CanQuantizeWeights(type));
  const Input& in = FixtureInput();
  ASSERT_EQ(static_cast<int64_t>(in.x.size()), in.rows * in.n_per_row);

  const std::vector<char> want = ReadFile(kDir + entry["file"].get<std::string>());
  const std::vector<char> got = Quantize(type, in.x, in.rows, in.n_per_row);
  ASSERT_EQ(got.size(), want.size());
  ASSERT_EQ(static_cast<int64_t>(got.size()), entry["bytes"].get<int64_t>());
  int64_t mismatches = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i] && mismatches++ < 5) {
      ADD_FAILURE() << name << " byte " << i << " in " << SegmentOf(type, i) << ": "
                    << int{static_cast<uint8_t>(got[i])} << " != " << int{static_cast<uint8_t>(want[i])};
    }
  }
  EXPECT_EQ(mismatches, 0) << name << ": bytes differing from ggml's";
}

// Blocks never span rows, so how the same floats are cut into rows does not
// change the bytes.
TEST_P(GgmlParityTest, RowSplitDoesNotMatter) {
  const auto type = static_cast<DType>(TypeEntry(GetParam())["ggml_id"].get<uint32_t>());
  const Input& in = FixtureInput();
  const int64_t n = in.rows * in.n_per_row;
  const int64_t block = std::max<int64_t>(DTypeBlockElems(type), 32);
  EXPECT_EQ(Quantize(type, in.x, in.rows, in.n_per_row), Quantize(type, in.x, 1, n));
  EXPECT_EQ(Quantize(type, in.x, in.rows, in.n_per_row), Quantize(type, in.x, n / block, block));
}

INSTANTIATE_TEST_SUITE_P(WeightTypes, GgmlParityTest, ::testing::ValuesIn(kTypes),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// How far a dequantized element may be from its input: a fraction of the
// largest magnitude in its 256-element segment, plus an absolute floor for
// segments too small for f16 scales.
//
// The fraction is one step of a grid of `levels` values spanning
// [-amax, amax], 2 amax / (levels - 1): nearest rounding costs half a step,
// and the other half covers what the formats add on top: the symmetric
// types map -amax to their lowest level, so +amax can be clipped by a step;
// scales are rounded to f16 (2^-11 relative) and, in the K-quants, to 4-8
// bit sub-block scales. Q3_K gets two steps: its sub-block scale is a
// least-squares fit weighted by x^2, not amax / 4, and with only 3 levels
// on the short side the elements beyond the stored range clip by more than
// a step (on the fixture its worst error is 1.08 steps).
//
// IQ4_NL and IQ4_XS get a step of 16 levels, 0.13 of amax: their table's
// widest gap is 24 of the 127 units amax spans, so the nearest value is at
// most 0.09 of amax away, and the step's rest covers the fitted scale (not
// amax / 127) and IQ4_XS's six-bit sub-block scales. Those are multiples of
// 1/32 of the largest, so a sub-block under half a multiple is stored as
// zeros, which misses its elements by at most about 2/64 of amax.
//
// The floor: every scale is an f16, whose rounding near zero is absolute,
// at most 2^-25 (half the smallest subnormal); an element is
// scale * (sub-block integer scale) * level, so that error is multiplied by
// the largest such product (`scale_units`).
struct Tolerance {
  double steps;        // grid steps allowed
  double levels;       // values of the element grid
  double scale_units;  // largest |integer scale * level| multiplying the f16 scale
};

Tolerance ToleranceFor(DType t) {
  switch (t) {
    case DType::kF32: return {0, 1, 0};
    case DType::kF16: return {0.5, 2049, 1};  // rounding to 11 bits: at most 2^-11 of |x|
    case DType::kBF16: return {0.5, 257, 0};  // to 8 bits, 2^-8; bf16 has f32's range, no floor
    case DType::kQ4_0:
    case DType::kQ4_1: return {1, 16, 16};
    case DType::kQ5_0:
    case DType::kQ5_1: return {1, 32, 32};
    case DType::kQ8_0: return {1, 256, 128};
    case DType::kQ2_K: return {1, 4, 4 * 16};
    case DType::kQ3_K: return {2, 8, 4 * 32};
    case DType::kQ4_K: return {1, 16, 16 * 64};
    case DType::kQ5_K: return {1, 32, 32 * 64};
    case DType::kQ6_K: return {1, 64, 32 * 128};
    case DType::kIQ4_NL: return {1, 16, 127};
    case DType::kIQ4_XS: return {1, 16, 32 * 127};
    default: return {0, 1, 0};
  }
}

TEST_P(GgmlParityTest, DequantizesNearTheInput) {
  const auto type = static_cast<DType>(TypeEntry(GetParam())["ggml_id"].get<uint32_t>());
  const Input& in = FixtureInput();
  const int64_t n = in.rows * in.n_per_row;
  const std::vector<char> q = Quantize(type, in.x, in.rows, in.n_per_row);
  std::vector<float> back(static_cast<size_t>(n));
  kernels::reference::DequantizeRow(type, q.data(), back.data(), n);

  const Tolerance tol = ToleranceFor(type);
  const int64_t seg = Index()["segment_elems"].get<int64_t>();
  double worst = 0;  // largest error as a fraction of the allowed
  for (int64_t s = 0; s < n / seg; ++s) {
    double amax = 0;
    for (int64_t i = s * seg; i < (s + 1) * seg; ++i) amax = std::max(amax, std::fabs(double{in.x[i]}));
    const double allowed = tol.steps * 2 * amax / (tol.levels - 1) + tol.scale_units * std::ldexp(1.0, -25);
    for (int64_t i = s * seg; i < (s + 1) * seg; ++i) {
      const double err = std::fabs(double{back[i]} - double{in.x[i]});
      if (err > allowed) {
        ADD_FAILURE() << GetParam() << " element " << i << " of segment " << s << ": " << back[i] << " for "
                      << in.x[i] << ", error " << err << " > " << allowed;
        return;
      }
      if (allowed > 0) worst = std::max(worst, err / allowed);
    }
  }
  RecordProperty("worst_error_fraction", std::to_string(worst));
}

TEST(WeightQuantizerTest, KnowsWhichTypesItWrites) {
  for (const std::string& name : kTypes) {
    EXPECT_TRUE(CanQuantizeWeights(static_cast<DType>(TypeEntry(name)["ggml_id"].get<uint32_t>()))) << name;
  }
  for (DType t : {DType::kQ8_1, DType::kQ8_K}) {
    EXPECT_FALSE(CanQuantizeWeights(t)) << DTypeName(t);
  }
}

TEST(WeightQuantizerTest, RowLengthMustBeAMultipleOfTheBlock) {
  EXPECT_TRUE(CanQuantizeRowLength(DType::kQ4_0, 32));
  EXPECT_FALSE(CanQuantizeRowLength(DType::kQ4_0, 48));
  EXPECT_TRUE(CanQuantizeRowLength(DType::kQ4_K, 512));
  EXPECT_FALSE(CanQuantizeRowLength(DType::kQ4_K, 128));  // 32-aligned but not a super-block
  EXPECT_FALSE(CanQuantizeRowLength(DType::kQ6_K, 0));
  EXPECT_TRUE(CanQuantizeRowLength(DType::kF16, 7));
  EXPECT_TRUE(CanQuantizeRowLength(DType::kIQ4_NL, 32));
  EXPECT_FALSE(CanQuantizeRowLength(DType::kIQ4_XS, 32));  // IQ4_NL's table, but in super-blocks
  EXPECT_FALSE(CanQuantizeRowLength(DType::kQ8_K, 256));   // not a type we write
}

TEST(WeightQuantizerDeathTest, RefusesABadRowLength) {
  std::vector<float> x(512, 0.5f);
  std::vector<char> out(4096);
  EXPECT_DEATH(QuantizeWeightRows(DType::kQ4_K, x.data(), 2, 128, out.data()), "multiple of the type's block size");
  EXPECT_DEATH(QuantizeWeightRows(DType::kQ8_0, x.data(), 1, 48, out.data()), "multiple of the type's block size");
  EXPECT_DEATH(QuantizeWeightRows(DType::kIQ4_XS, x.data(), 4, 128, out.data()), "multiple of the type's block size");
  EXPECT_DEATH(QuantizeWeightRows(DType::kQ8_K, x.data(), 1, 256, out.data()), "no weight quantizer");
}

}  // namespace
}  // namespace pagoda::quantize
