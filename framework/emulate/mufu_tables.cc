// The MUFU tables built into the library (internal/mufu_tables.h). The gzip files of
// framework/emulate/data are assembled into this object as they are (.incbin, BANKCHECK_MUFU_DATA_DIR
// set by CMakeLists.txt): 590 KB in the library, 40 MB once decoded, so a table is decoded only when a
// launch first runs its function. Carried inside the library, they reach every build and package of
// it (the installed static library, the wheel's shared one, FetchContent, a release tarball) with no
// data file to find at run time and no compression library to link (internal/gzip.h).
#include "emulate/internal/mufu_tables.h"

#include "emulate/internal/float_bits.h"
#include "emulate/internal/gzip.h"

#ifndef BANKCHECK_MUFU_DATA_DIR
#error "BANKCHECK_MUFU_DATA_DIR (the folder of mufu_<f>.i8.gz) is set by framework/emulate/CMakeLists.txt"
#endif

// Each file between two hidden symbols, <name>_begin and <name>_end, in read-only data.
// clang-format off
#define BANKCHECK_MUFU_LABEL(symbol) ".globl " symbol "\n.hidden " symbol "\n" symbol ":\n"
#define BANKCHECK_MUFU_FILE(name)                                                            \
  asm(".pushsection .rodata.bankcheck_" #name ",\"a\"\n"                                    \
      BANKCHECK_MUFU_LABEL("bankcheck_" #name "_begin")                                      \
      ".incbin \"" BANKCHECK_MUFU_DATA_DIR "/" #name ".i8.gz\"\n"                            \
      BANKCHECK_MUFU_LABEL("bankcheck_" #name "_end")                                        \
      ".popsection\n");                                                                      \
  extern "C" __attribute__((visibility("hidden"))) const uint8_t bankcheck_##name##_begin[]; \
  extern "C" __attribute__((visibility("hidden"))) const uint8_t bankcheck_##name##_end[];
// clang-format on

BANKCHECK_MUFU_FILE(mufu_rcp)
BANKCHECK_MUFU_FILE(mufu_rsq)
BANKCHECK_MUFU_FILE(mufu_sqrt)

namespace bankcheck::emulate::internal {
namespace {

// The CRC-32 of each decoded table, the one benchmarks/mufu_exhaustive.cu wrote on the H100
// (benchmarks/data/mufu_exhaustive_h100.txt). Pinned here, beside the files, so that a file replaced
// by another valid gzip file, or a stale copy of it, is refused too; a new table comes with its CRC.
constexpr uint32_t kRcpCrc32 = 0x203b808eu;
constexpr uint32_t kRsqCrc32 = 0x6782b986u;
constexpr uint32_t kSqrtCrc32 = 0x180a7f1eu;

MufuTable Embedded(MufuFunction f, const uint8_t* begin, const uint8_t* end, uint32_t crc32) {
  return MufuTable(f, begin, static_cast<size_t>(end - begin), crc32);
}

// MufuTableForTesting's tables, by function (nullptr: the built-in one).
const MufuTable* g_testing[3] = {};

}  // namespace

std::optional<MufuFunction> ModelledMufu(const Instruction& in) {
  if (in.base != "MUFU" || in.modifiers.size() != 1 || in.unchecked_form) return std::nullopt;
  if (in.modifiers[0] == "RCP") return MufuFunction::kRcp;
  if (in.modifiers[0] == "RSQ") return MufuFunction::kRsq;
  if (in.modifiers[0] == "SQRT") return MufuFunction::kSqrt;
  return std::nullopt;
}

MufuTable::MufuTable(MufuFunction f, const uint8_t* gzip, size_t size, uint32_t crc32) : f_(f) {
  const char* name = f == MufuFunction::kRcp   ? "MUFU.RCP"
                     : f == MufuFunction::kRsq ? "MUFU.RSQ"
                                               : "MUFU.SQRT";
  std::string why;
  if (!Gunzip(gzip, size, MufuTableSize(f), crc32, &differences_, &why)) {
    why_ = std::string(name) + "'s table, built into the library, cannot be read: " + why;
  }
  if (!ok()) differences_ = {};
}

uint32_t MufuTable::Output(uint32_t x) const {
  return MufuModel(f_, x, [this](uint32_t i) {
    const int32_t difference = static_cast<int8_t>(differences_[i]);
    return static_cast<uint32_t>(static_cast<int32_t>(MufuReference(f_, MufuTableInput(i))) + difference);
  });
}

const MufuTable& BuiltInMufuTable(MufuFunction f) {
  if (const MufuTable* testing = g_testing[static_cast<int>(f)]) return *testing;
  switch (f) {
    case MufuFunction::kRcp: {
      static const MufuTable table = Embedded(f, bankcheck_mufu_rcp_begin, bankcheck_mufu_rcp_end, kRcpCrc32);
      return table;
    }
    case MufuFunction::kRsq: {
      static const MufuTable table = Embedded(f, bankcheck_mufu_rsq_begin, bankcheck_mufu_rsq_end, kRsqCrc32);
      return table;
    }
    case MufuFunction::kSqrt:
      break;
  }
  static const MufuTable table =
      Embedded(MufuFunction::kSqrt, bankcheck_mufu_sqrt_begin, bankcheck_mufu_sqrt_end, kSqrtCrc32);
  return table;
}

MufuTableForTesting::MufuTableForTesting(MufuFunction f, const MufuTable& table)
    : f_(f), before_(g_testing[static_cast<int>(f)]) {
  g_testing[static_cast<int>(f)] = &table;
}

MufuTableForTesting::~MufuTableForTesting() { g_testing[static_cast<int>(f_)] = before_; }

}  // namespace bankcheck::emulate::internal
