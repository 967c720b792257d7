#include "pagoda/kv_blocks/sha256.h"

#include <gtest/gtest.h>

#include <string>

namespace pagoda {
namespace {

std::string Hex(const Sha256::Digest& d) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (uint8_t b : d) {
    s += kDigits[b >> 4];
    s += kDigits[b & 15];
  }
  return s;
}

std::string HashOf(const std::string& text) {
  Sha256 h;
  h.Update({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  return Hex(h.Finish());
}

// Digests from FIPS 180-4's examples and the NIST test vectors.
TEST(Sha256Test, MatchesPublishedVectors) {
  EXPECT_EQ(HashOf(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(HashOf("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(HashOf("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(HashOf(std::string(1000, 'a')), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

TEST(Sha256Test, SplitUpdatesEqualOneUpdate) {
  const std::string text(200, 'x');
  Sha256 h;
  for (size_t i = 0; i < text.size(); i += 7) {
    const size_t n = std::min<size_t>(7, text.size() - i);
    h.Update({reinterpret_cast<const uint8_t*>(text.data() + i), n});
  }
  EXPECT_EQ(Hex(h.Finish()), HashOf(text));
}

}  // namespace
}  // namespace pagoda
