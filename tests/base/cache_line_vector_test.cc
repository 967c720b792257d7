#include "pagoda/base/cache_line_vector.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace pagoda {
namespace {

bool OnACacheLine(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % kCacheLine == 0; }

// Every reallocation, whatever the size, starts on a line: the sizes include
// those that malloc serves by mmap, whose data starts 16 bytes into a page.
TEST(CacheLineVectorTest, DataStartsOnACacheLineAfterEveryReallocation) {
  CacheLineVector<float> v;
  for (std::size_t n : {1, 15, 17, 1000, 300000, 5, 3000000}) {
    v.resize(n);
    ASSERT_TRUE(OnACacheLine(v.data())) << n;
    v.shrink_to_fit();
    ASSERT_TRUE(OnACacheLine(v.data())) << n;
  }
}

// assign() and construction with a value still write that value; only the
// elements resize() adds are left for the caller to write.
TEST(CacheLineVectorTest, ExplicitValuesAreKept) {
  CacheLineVector<float> v(1000, 2.5f);
  for (float x : v) ASSERT_EQ(x, 2.5f);
  v.assign(3000, 0.0f);
  for (float x : v) ASSERT_EQ(x, 0.0f);
  v.resize(10);
  v.resize(20, 7.0f);
  for (std::size_t i = 10; i < 20; ++i) ASSERT_EQ(v[i], 7.0f);
}

}  // namespace
}  // namespace pagoda
