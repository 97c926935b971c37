// internal/gzip.h: zlib's decoding of a gzip member, and every member that is not exactly the one
// asked for refused with its reason (the MUFU tables themselves: mufu_tables_test.cc). bankcheck's own
// tests are built only where zlib.h was found (CMakeLists.txt).
#include "emulate/internal/gzip.h"

#include <gmock/gmock.h>

#include <cstdint>
#include <string>
#include <vector>

namespace bankcheck::emulate::internal {
namespace {

using ::testing::HasSubstr;

// Python's gzip.compress(b"123456789", 9, mtime=0); the CRC-32 of "123456789" is the standard check
// value.
const std::vector<uint8_t> kMember = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03,
                                      0x33, 0x34, 0x32, 0x36, 0x31, 0x35, 0x33, 0xb7, 0xb0, 0x04,
                                      0x00, 0x26, 0x39, 0xf4, 0xcb, 0x09, 0x00, 0x00, 0x00};
constexpr uint32_t kCheck = 0xcbf43926u;

std::string Decoded(const std::vector<uint8_t>& member, size_t size, uint32_t crc32, std::string* why) {
  std::vector<uint8_t> out;
  if (!Gunzip(member.data(), member.size(), size, crc32, &out, why))
    return out.empty() ? "(failed)" : "(kept)";
  return std::string(out.begin(), out.end());
}

TEST(GzipTest, DecodesAMember) {
  std::string why;
  EXPECT_EQ(Decoded(kMember, 9, kCheck, &why), "123456789") << why;
}

TEST(GzipTest, RefusesEveryOtherMember) {
  std::string why;
  EXPECT_EQ(Decoded(kMember, 8, kCheck, &why), "(failed)");
  EXPECT_THAT(why, HasSubstr("holds 9 bytes, not 8"));
  EXPECT_EQ(Decoded(kMember, 10, kCheck, &why), "(failed)");
  EXPECT_THAT(why, HasSubstr("holds 9 bytes, not 10"));
  EXPECT_EQ(Decoded(kMember, 9, kCheck ^ 1, &why), "(failed)");
  EXPECT_THAT(why, HasSubstr("not the pinned one"));
  std::vector<uint8_t> bad = kMember;
  bad[bad.size() - 8] ^= 1;  // the trailer's CRC-32: zlib's own check fails
  EXPECT_EQ(Decoded(bad, 9, kCheck, &why), "(failed)");
  EXPECT_THAT(why, HasSubstr("zlib: "));
  bad.assign(kMember.begin(), kMember.begin() + 14);
  EXPECT_EQ(Decoded(bad, 9, kCheck, &why), "(failed)");
  EXPECT_THAT(why, HasSubstr("truncated"));
  bad = kMember;
  bad.push_back(0);
  EXPECT_EQ(Decoded(bad, 9, kCheck, &why), "(failed)");
  EXPECT_THAT(why, HasSubstr("1 bytes follow the gzip member"));
  bad = kMember;
  bad[0] = 0;  // not a gzip member
  EXPECT_EQ(Decoded(bad, 9, kCheck, &why), "(failed)");
  EXPECT_THAT(why, HasSubstr("zlib: "));
}

}  // namespace
}  // namespace bankcheck::emulate::internal
