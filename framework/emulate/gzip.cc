// internal/gzip.h: zlib's inflate, loaded at the first call.
#include "emulate/internal/gzip.h"

#include <dlfcn.h>

#include <limits>

#if BANKCHECK_HAVE_ZLIB_H
#include <zlib.h>
#endif

namespace bankcheck::emulate::internal {
namespace {

#if BANKCHECK_HAVE_ZLIB_H
// The zlib functions Gunzip calls, from libz.so.1, or why they could not be had.
struct Zlib {
  decltype(&::inflateInit2_) init = nullptr;
  decltype(&::inflate) inflate = nullptr;
  decltype(&::inflateEnd) end = nullptr;
  std::string why;
};

// Loaded once per process; the library stays loaded (its functions may be called until exit).
const Zlib& LoadedZlib() {
  static const Zlib zlib = [] {
    Zlib z;
    void* library = ::dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* error = ::dlerror();
      z.why = std::string("zlib (libz.so.1), which decodes it, could not be loaded: ") +
              (error != nullptr ? error : "dlopen failed");
      return z;
    }
    z.init = reinterpret_cast<decltype(z.init)>(::dlsym(library, "inflateInit2_"));
    z.inflate = reinterpret_cast<decltype(z.inflate)>(::dlsym(library, "inflate"));
    z.end = reinterpret_cast<decltype(z.end)>(::dlsym(library, "inflateEnd"));
    if (z.init == nullptr || z.inflate == nullptr || z.end == nullptr) {
      z.why = "the loaded libz.so.1 lacks inflateInit2_, inflate or inflateEnd";
    }
    return z;
  }();
  return zlib;
}
#endif

}  // namespace

bool Gunzip(const uint8_t* data, size_t data_size, size_t size, uint32_t crc32, std::vector<uint8_t>* out,
            std::string* why) {
  out->clear();
#if !BANKCHECK_HAVE_ZLIB_H
  (void)data, (void)data_size, (void)size, (void)crc32;
  *why =
      "the library was built without zlib's header (zlib.h, not found at configure time), which decodes it";
  return false;
#else
  const Zlib& zlib = LoadedZlib();
  if (!zlib.why.empty()) {
    *why = zlib.why;
    return false;
  }
  constexpr size_t kLimit = std::numeric_limits<uInt>::max() - 1;
  if (data_size > kLimit || size > kLimit) {
    *why = "the member or its contents are larger than zlib takes in one call";
    return false;
  }
  // One byte more than expected: a member that decodes to more than `size` bytes is told apart.
  std::vector<uint8_t> bytes(size + 1);
  z_stream stream{};
  stream.next_in = const_cast<Bytef*>(data);  // zlib's interface is not const; it only reads
  stream.avail_in = static_cast<uInt>(data_size);
  stream.next_out = bytes.data();
  stream.avail_out = static_cast<uInt>(bytes.size());
  // 16 + MAX_WBITS: a gzip member (header and trailer checked), not a zlib stream.
  if (zlib.init(&stream, 16 + MAX_WBITS, ZLIB_VERSION, static_cast<int>(sizeof(z_stream))) != Z_OK) {
    *why = "zlib refused to start (the loaded libz.so.1 is not compatible with zlib.h " ZLIB_VERSION ")";
    return false;
  }
  const int status = zlib.inflate(&stream, Z_FINISH);
  const std::string message = stream.msg != nullptr ? stream.msg : "";
  const size_t produced = bytes.size() - stream.avail_out;
  const auto decoded_crc32 = static_cast<uint32_t>(stream.adler);  // gzip: the CRC-32 of the output
  zlib.end(&stream);
  if (status != Z_STREAM_END) {
    *why = produced > size        ? "it decodes to more than " + std::to_string(size) + " bytes"
           : !message.empty()     ? "zlib: " + message
           : stream.avail_in == 0 ? std::string("it is truncated")
                                  : "zlib stopped with status " + std::to_string(status);
    return false;
  }
  if (stream.avail_in != 0) {
    *why = std::to_string(stream.avail_in) + " bytes follow the gzip member";
    return false;
  }
  if (produced != size) {
    *why = "it holds " + std::to_string(produced) + " bytes, not " + std::to_string(size);
    return false;
  }
  if (decoded_crc32 != crc32) {
    *why = "its CRC-32 is not the pinned one (not the table measured on the GPU)";
    return false;
  }
  bytes.resize(size);
  *out = std::move(bytes);
  return true;
#endif
}

}  // namespace bankcheck::emulate::internal
