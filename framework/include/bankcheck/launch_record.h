#pragma once
// What bankcheck measures for one kernel launch.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace bankcheck {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  friend bool operator==(const Dim3& a, const Dim3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
  friend bool operator!=(const Dim3& a, const Dim3& b) { return !(a == b); }
};
std::string ToString(const Dim3& d);  // "128x128x1"

// Exact counts for one direction (loads or stores) of shared-memory traffic.
struct SharedCounts {
  uint64_t instructions = 0;      // warp-level shared load (or store) instructions executed
  uint64_t wavefronts = 0;        // passes through the shared-memory data stage
  uint64_t ideal_wavefronts = 0;  // what the same instructions would cost without conflicts

  uint64_t conflicts() const { return wavefronts > ideal_wavefronts ? wavefronts - ideal_wavefronts : 0; }
  // wavefronts / ideal; 1.0 for conflict-free (and for no traffic at all).
  double ways() const;

  friend bool operator==(const SharedCounts& a, const SharedCounts& b) {
    return a.instructions == b.instructions && a.wavefronts == b.wavefronts &&
           a.ideal_wavefronts == b.ideal_wavefronts;
  }
  friend bool operator!=(const SharedCounts& a, const SharedCounts& b) { return !(a == b); }
};

// Raw hardware counter readings. At scale they read a few percent high (other L1 traffic is
// counted), so they are reported beside the exact counts, never instead of them.
struct HardwareReadings {
  uint64_t wavefronts = 0;
  uint64_t bank_conflicts = 0;
};

struct LaunchRecord {
  std::string kernel;          // demangled, for people
  std::string mangled_kernel;  // for matching
  Dim3 grid;
  Dim3 block;
  uint32_t dynamic_shared_bytes = 0;

  SharedCounts loads;
  SharedCounts stores;
  HardwareReadings hardware_loads;
  HardwareReadings hardware_stores;

  // Metrics the user asked for by name, with their values.
  std::map<std::string, double> extra_metrics;
  // Anything worth a reader's attention (e.g. ideal wavefronts differing from the instruction
  // count although the accesses were believed to be 4 bytes or narrower).
  std::vector<std::string> notes;

  // True when the hardware readings differ from the exact values.
  bool hardware_differs() const;
};

// The exact values derived from the four readings of one direction:
//   ideal     = hardware wavefronts - hardware conflicts (exact in every run measured)
//   wavefronts = the instrumented (sass) wavefront count
SharedCounts DeriveSharedCounts(double sass_instructions, double sass_wavefronts, double hardware_wavefronts,
                                double hardware_conflicts);

// Adds notes to `record` for what a reader should know: ideal wavefronts that differ from the
// instruction count (expected for 8- and 16-byte accesses, suspicious otherwise), and hardware
// readings that differ from the exact counts.
void AddConsistencyNotes(LaunchRecord& record);

// One line for a person: "ld 8 inst / 16 wf (8 conflicts, 2-way) | st ...".
std::string Summary(const LaunchRecord& record);

}  // namespace bankcheck
