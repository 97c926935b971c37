// The tables of the MUFU model (mufu_model.h) as the emulator reads them: built into the library as
// the gzip files of framework/emulate/data (mufu_tables.cc), decoded at their first use and checked
// against the CRC-32 pinned beside them. A table that cannot be read leaves its function's outputs
// unknown, with the reason; it never gives a value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "emulate/internal/mufu_model.h"
#include "emulate/internal/sass.h"

namespace bankcheck::emulate::internal {

// The function an instruction computes by the model: MUFU with exactly the one modifier RCP, RSQ or
// SQRT (not .F16, not RCP64H/RSQ64H, the halves of a double's), whose form the conformance vectors
// check (checked_forms.def).
std::optional<MufuFunction> ModelledMufu(const Instruction& in);

// One function's table: its MufuTableSize differences from MufuReference (a signed byte each, in
// units in the last place), as benchmarks/mufu_exhaustive.cu writes them and gzip -9n compresses them.
class MufuTable {
 public:
  // Decodes `gzip`, which must hold MufuTableSize(f) bytes whose CRC-32 is `crc32`; otherwise the
  // table is not ok() and why() says what failed.
  MufuTable(MufuFunction f, const uint8_t* gzip, size_t size, uint32_t crc32);

  bool ok() const { return why_.empty(); }
  const std::string& why() const { return why_; }
  // The GPU's output for input bits x (ok() only).
  uint32_t Output(uint32_t x) const;

 private:
  MufuFunction f_;
  std::vector<uint8_t> differences_;
  std::string why_;
};

// The library's own table of `f`, decoded at the first call for it (once, whichever thread asks), or
// the table a MufuTableForTesting put in its place.
const MufuTable& BuiltInMufuTable(MufuFunction f);

// While it lives, BuiltInMufuTable(f) is `table` (a test's corrupt one: what the evaluator does
// without a table). Not for concurrent use: tests only.
class MufuTableForTesting {
 public:
  MufuTableForTesting(MufuFunction f, const MufuTable& table);
  ~MufuTableForTesting();
  MufuTableForTesting(const MufuTableForTesting&) = delete;
  MufuTableForTesting& operator=(const MufuTableForTesting&) = delete;

 private:
  MufuFunction f_;
  const MufuTable* before_;
};

}  // namespace bankcheck::emulate::internal
