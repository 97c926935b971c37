// gzip members decoded by zlib, for the tables built into the library (mufu_tables.cc). zlib is
// loaded at the first call (libz.so.1, which every glibc system carries, Debian's essential zlib1g
// among them), not linked: the installed static library, the wheel's shared one and a release
// tarball used in a root with no -dev package gain no link dependency. Where the library was built
// without zlib's header (zlib.h not found at configure time) or libz.so.1 cannot be loaded, every
// call fails saying so, and the tables' functions stay unknown.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bankcheck::emulate::internal {

// The bytes of the single gzip member `data`, which must decompress to exactly `size` bytes, pass
// the member's own CRC-32 and length check (zlib's) and have the CRC-32 `crc32` (a pinned value: a
// valid member of other bytes is refused too). False with `why` otherwise; `out` is then empty.
bool Gunzip(const uint8_t* data, size_t data_size, size_t size, uint32_t crc32, std::vector<uint8_t>* out,
            std::string* why);

}  // namespace bankcheck::emulate::internal
