#include "pagoda/engine/memory_size.h"

#include <gtest/gtest.h>

namespace pagoda {
namespace {

TEST(MemorySizeTest, ParsesBytesAndBinaryUnits) {
  EXPECT_EQ(*ParseMemorySize("1048576"), 1048576);
  EXPECT_EQ(*ParseMemorySize("512B"), 512);
  EXPECT_EQ(*ParseMemorySize("4KiB"), 4096);
  EXPECT_EQ(*ParseMemorySize("512MiB"), 512LL * 1024 * 1024);
  EXPECT_EQ(*ParseMemorySize("2GiB"), 2LL * 1024 * 1024 * 1024);
  EXPECT_EQ(*ParseMemorySize("2gb"), 2LL * 1024 * 1024 * 1024);
  EXPECT_EQ(*ParseMemorySize("3 G"), 3LL * 1024 * 1024 * 1024);
  EXPECT_EQ(*ParseMemorySize("1.5GiB"), 1536LL * 1024 * 1024);
  EXPECT_EQ(*ParseMemorySize("1TiB"), 1LL << 40);
}

TEST(MemorySizeTest, RefusesMalformedSizes) {
  for (const char* bad : {"", "GiB", "-1", "1.5", "2 GiBs", "1e3", "12XB", "1..2MiB", "99999999999TiB"}) {
    EXPECT_FALSE(ParseMemorySize(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace pagoda
