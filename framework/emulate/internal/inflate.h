// gzip's decompression (RFC 1952 around RFC 1951's deflate), for the tables built into the library
// (mufu_tables.cc): the library links no compression library, so that every build and package of it
// (the installed static library, the wheel's shared one, a clean root with no -dev package) has its
// tables without a dependency. Written from the RFCs; it reads what `gzip -9n` writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bankcheck::emulate::internal {

// The CRC-32 of `size` bytes (ISO-HDLC, gzip's and zlib's crc32), continuing from `crc`.
uint32_t Crc32(const uint8_t* data, size_t size, uint32_t crc = 0);

// The bytes of the single gzip member `data` (no file name, comment or extra field: gzip -n), which
// must decompress to exactly `size` bytes whose CRC-32 is the trailer's. False with `why` when the
// member is malformed, truncated, longer or shorter than `size`, or fails its CRC; `out` is then
// unspecified.
bool Gunzip(const uint8_t* data, size_t data_size, size_t size, std::vector<uint8_t>* out, std::string* why);

}  // namespace bankcheck::emulate::internal
