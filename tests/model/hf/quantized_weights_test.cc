// quantization_config is read into a scheme or refused by the key that asks
// for what Pagoda cannot do; the layout each scheme is repacked into.
#include "pagoda/model/hf/quantized_weights.h"

#include <gtest/gtest.h>

#include <string>

namespace pagoda::hf {
namespace {

using nlohmann::json;

json Gptq(bool sym, bool desc_act, int bits = 4) {
  return {{"quant_method", "gptq"}, {"bits", bits}, {"group_size", 128}, {"sym", sym}, {"desc_act", desc_act}};
}

TEST(QuantSchemeTest, GptqWithZeroPointsAndActOrderIsRead) {
  for (const bool sym : {true, false}) {
    for (const bool desc_act : {true, false}) {
      const auto s = ReadQuantScheme(Gptq(sym, desc_act));
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      EXPECT_EQ(s->format, QuantFormat::kGptq);
      EXPECT_EQ(s->symmetric, sym);
      EXPECT_EQ(s->group_size, 128);
      EXPECT_TRUE(s->gptq_v1);
    }
  }
}

TEST(QuantSchemeTest, LayoutsNameTheBlockType) {
  EXPECT_EQ(RepackedLayout(*ReadQuantScheme(Gptq(true, false))), "Q4_0");
  EXPECT_EQ(RepackedLayout(*ReadQuantScheme(Gptq(true, true, 8))), "Q8_0");
  EXPECT_EQ(RepackedLayout(*ReadQuantScheme(Gptq(false, true))), "Q4_1");
  EXPECT_EQ(RepackedLayout(*ReadQuantScheme(Gptq(false, false, 8))), "Q8_0 (blocks whose q - z overflow a byte requantized)");
  EXPECT_EQ(RepackedLayout(*ReadQuantScheme({{"quant_method", "awq"}, {"bits", 4}, {"group_size", 64}})), "Q4_1");
  EXPECT_EQ(RepackedLayout(*ReadQuantScheme({{"quant_method", "fp8"}, {"activation_scheme", "dynamic"}})),
            "Q8_0 (requantized from e4m3)");
}

void ExpectRefused(const json& config, const std::string& names) {
  const auto s = ReadQuantScheme(config);
  ASSERT_FALSE(s.ok()) << config.dump();
  EXPECT_NE(s.status().message().find(names), std::string::npos) << s.status().ToString();
}

TEST(QuantSchemeTest, RefusesByKey) {
  json three_bits = Gptq(true, false, 3);
  ExpectRefused(three_bits, "'bits' = 3");
  json odd_group = Gptq(true, false);
  odd_group["group_size"] = 48;
  ExpectRefused(odd_group, "'group_size' = 48");
  json marlin = Gptq(true, false);
  marlin["checkpoint_format"] = "marlin";
  ExpectRefused(marlin, "checkpoint_format");
  ExpectRefused({{"quant_method", "awq"}, {"bits", 4}, {"group_size", 64}, {"zero_point", false}}, "zero_point");
  ExpectRefused({{"quant_method", "awq"}, {"bits", 4}, {"group_size", 64}, {"version", "gemv"}}, "version");
  ExpectRefused({{"quant_method", "bitsandbytes"}}, "'bitsandbytes'");
}

}  // namespace
}  // namespace pagoda::hf
