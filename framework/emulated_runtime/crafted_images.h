#pragma once
// Images crafted against cuModuleLoadData (docs/security.md): ELF headers whose section header
// table lies where no image is. The stand-in runtime's test loads them (driver_api_bounds_test.cc),
// and the GPU probe (device_probe/device_probe.cu) measures the driver's answer to the same bytes.

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace emutest {

// A 64-byte image that is only an ELF header (64-bit, little-endian, CUDA's machine) declaring
// `sections` section headers of 64 bytes at offset `section_headers`.
inline std::string ElfHeaderOnly(uint64_t section_headers, uint16_t sections) {
  std::string image(64, '\0');
  std::memcpy(image.data(),
              "\x7f"
              "ELF\x02\x01\x01",
              7);
  const uint16_t type = 2, machine = 190, header_size = 64, section_entry = 64;
  const uint32_t version = 1;
  std::memcpy(&image[0x10], &type, 2);
  std::memcpy(&image[0x12], &machine, 2);
  std::memcpy(&image[0x14], &version, 4);
  std::memcpy(&image[0x28], &section_headers, 8);
  std::memcpy(&image[0x34], &header_size, 2);
  std::memcpy(&image[0x3a], &section_entry, 2);
  std::memcpy(&image[0x3c], &sections, 2);
  return image;
}

// `image`'s bytes at the end of a readable page that an unreadable one follows, so that reading
// one byte past the image faults. The pages are never unmapped (tests).
inline const void* BeforeAGuardPage(const std::string& image) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  auto* pages = static_cast<char*>(
      ::mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (pages == MAP_FAILED || image.size() > page) return nullptr;
  ::mprotect(pages + page, page, PROT_NONE);
  char* at = pages + page - image.size();
  std::memcpy(at, image.data(), image.size());
  return at;
}

}  // namespace emutest
