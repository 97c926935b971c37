#include "bankcheck/launch_record.h"

#include <cmath>
#include <sstream>

namespace bankcheck {

std::string ToString(const Dim3& d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

double SharedCounts::ways() const {
  if (ideal_wavefronts == 0) return 1.0;
  return static_cast<double>(wavefronts) / static_cast<double>(ideal_wavefronts);
}

bool LaunchRecord::hardware_differs() const {
  return hardware_loads.wavefronts != loads.wavefronts ||
         hardware_loads.bank_conflicts != loads.conflicts() ||
         hardware_stores.wavefronts != stores.wavefronts ||
         hardware_stores.bank_conflicts != stores.conflicts();
}

namespace {
// CUPTI reports counters as doubles; they are integral. Round, and clamp the impossible negatives.
uint64_t ToCount(double value) { return value <= 0.0 ? 0 : static_cast<uint64_t>(std::llround(value)); }
}  // namespace

SharedCounts DeriveSharedCounts(double sass_instructions, double sass_wavefronts, double hardware_wavefronts,
                                double hardware_conflicts) {
  SharedCounts counts;
  counts.instructions = ToCount(sass_instructions);
  counts.wavefronts = ToCount(sass_wavefronts);
  // The hardware counters over-count by the same amount in both readings (other L1 traffic), so
  // their difference is the ideal wavefront count, exactly, in every run measured on the H100.
  counts.ideal_wavefronts = ToCount(hardware_wavefronts - hardware_conflicts);
  return counts;
}

namespace {
void NoteIdealVersusInstructions(const char* what, const SharedCounts& c, std::vector<std::string>& notes) {
  if (c.ideal_wavefronts == c.instructions) return;
  std::ostringstream note;
  note << what << ": ideal wavefronts (" << c.ideal_wavefronts << ") differ from instructions ("
       << c.instructions
       << "): expected only for 8-byte (2 per instruction) or 16-byte (4 per instruction) accesses";
  notes.push_back(note.str());
}
}  // namespace

void AddConsistencyNotes(LaunchRecord& record) {
  NoteIdealVersusInstructions("shared loads", record.loads, record.notes);
  NoteIdealVersusInstructions("shared stores", record.stores, record.notes);
  if (record.hardware_differs()) {
    std::ostringstream note;
    note << "hardware counters differ from the exact counts (they also count other L1 traffic): ld "
         << record.hardware_loads.wavefronts << " wf / " << record.hardware_loads.bank_conflicts
         << " conflicts, st " << record.hardware_stores.wavefronts << " wf / "
         << record.hardware_stores.bank_conflicts << " conflicts";
    record.notes.push_back(note.str());
  }
}

namespace {
void AppendCounts(std::ostringstream& out, const char* what, const SharedCounts& c) {
  out << what << " " << c.instructions << " inst / " << c.wavefronts << " wf (" << c.conflicts()
      << " conflicts, ";
  std::ostringstream ways;
  ways << c.ways();
  out << ways.str() << "-way)";
}
}  // namespace

std::string Summary(const LaunchRecord& record) {
  std::ostringstream out;
  out << record.kernel << " <<<" << ToString(record.grid) << ", " << ToString(record.block) << ">>> ";
  AppendCounts(out, "ld", record.loads);
  out << " | ";
  AppendCounts(out, "st", record.stores);
  return out.str();
}

}  // namespace bankcheck
