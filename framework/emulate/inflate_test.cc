// gzip's decompression (inflate.h): the three kinds of deflate block (stored and fixed here, dynamic
// in the MUFU tables, mufu_tables_test.cc), and every malformed member refused with its reason.
#include "emulate/internal/inflate.h"

#include <gmock/gmock.h>

#include <cstdint>
#include <string>
#include <vector>

namespace bankcheck::emulate::internal {
namespace {

using ::testing::HasSubstr;

// Python's zlib (level 0: one stored block) of "bankcheck", in a gzip member with no name.
const std::vector<uint8_t> kStored = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x01,
                                      0x09, 0x00, 0xf6, 0xff, 0x62, 0x61, 0x6e, 0x6b, 0x63, 0x68, 0x65,
                                      0x63, 0x6b, 0x86, 0x8e, 0xcb, 0xcb, 0x09, 0x00, 0x00, 0x00};
// Level 9 of "abcabcabcabcabcabcabcabc!": a fixed-code block, a copy overlapping what it writes.
const std::vector<uint8_t> kFixed = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                     0x03, 0x4b, 0x4c, 0x4a, 0x4e, 0xc4, 0x86, 0x14, 0x01,
                                     0xd3, 0x7a, 0xd7, 0x26, 0x19, 0x00, 0x00, 0x00};

std::string Decoded(const std::vector<uint8_t>& member, size_t size, std::string* why) {
  std::vector<uint8_t> out;
  if (!Gunzip(member.data(), member.size(), size, &out, why)) return "(failed)";
  return std::string(out.begin(), out.end());
}

TEST(InflateTest, Crc32IsGzips) {
  const std::string check = "123456789";
  EXPECT_EQ(Crc32(reinterpret_cast<const uint8_t*>(check.data()), check.size()), 0xcbf43926u);
  EXPECT_EQ(Crc32(nullptr, 0), 0u);
}

TEST(InflateTest, StoredAndFixedBlocks) {
  std::string why;
  EXPECT_EQ(Decoded(kStored, 9, &why), "bankcheck") << why;
  EXPECT_EQ(Decoded(kFixed, 25, &why), "abcabcabcabcabcabcabcabc!") << why;
}

TEST(InflateTest, MalformedMembersAreRefused) {
  std::string why;
  EXPECT_EQ(Decoded(kFixed, 24, &why), "(failed)");  // one byte more than asked for
  EXPECT_THAT(why, HasSubstr("more than 24 bytes"));
  EXPECT_EQ(Decoded(kFixed, 26, &why), "(failed)");
  EXPECT_THAT(why, HasSubstr("holds 25 bytes, not 26"));
  std::vector<uint8_t> bad = kStored;
  bad[20] ^= 1;  // a stored byte: the CRC fails
  EXPECT_EQ(Decoded(bad, 9, &why), "(failed)");
  EXPECT_THAT(why, HasSubstr("CRC-32"));
  bad = kStored;
  bad[13] ^= 1;  // the stored length's complement
  EXPECT_EQ(Decoded(bad, 9, &why), "(failed)");
  EXPECT_THAT(why, HasSubstr("complement"));
  bad = kStored;
  bad[3] = 0x08;  // FNAME
  EXPECT_EQ(Decoded(bad, 9, &why), "(failed)");
  EXPECT_THAT(why, HasSubstr("gzip -n"));
  bad = kStored;
  bad.insert(bad.end() - 8, 0);  // a byte after the stream
  EXPECT_EQ(Decoded(bad, 9, &why), "(failed)");
  EXPECT_THAT(why, HasSubstr("between the deflate stream and the gzip trailer"));
  bad.assign(kFixed.begin(), kFixed.begin() + 14);  // the stream cut short, then a trailer
  bad.insert(bad.end(), kFixed.end() - 8, kFixed.end());
  EXPECT_EQ(Decoded(bad, 25, &why), "(failed)");
  EXPECT_THAT(why, HasSubstr("truncated"));
  bad = kFixed;
  bad[10] |= 6;  // block type 3
  EXPECT_EQ(Decoded(bad, 25, &why), "(failed)");
  EXPECT_THAT(why, HasSubstr("reserved"));
  bad.assign(kStored.begin(), kStored.begin() + 12);
  EXPECT_EQ(Decoded(bad, 9, &why), "(failed)");
  EXPECT_THAT(why, HasSubstr("shorter than"));
  // A copy from before the start: a fixed block whose first code is a length (257, 0000001), then
  // distance code 0 (00000), then end of block (0000000).
  bad = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x03,
         0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  EXPECT_EQ(Decoded(bad, 3, &why), "(failed)");
  EXPECT_THAT(why, HasSubstr("before the start"));
}

}  // namespace
}  // namespace bankcheck::emulate::internal
