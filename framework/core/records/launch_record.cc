#include "bankcheck/core/launch_record.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <sstream>
#include <utility>

#include "core/records/internal/name_table.h"

namespace bankcheck {

std::string ToString(const Dim3& d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

std::string GraphLaunchName(const std::vector<std::string>& kernels) {
  std::string name = "CUDA graph [";
  for (size_t i = 0; i < kernels.size(); ++i) name += (i == 0 ? "" : ", ") + kernels[i];
  return name + "]";
}

bool RecordsGraphByNode(const std::vector<std::string>& node_kernels) {
  const std::set<std::string> distinct(node_kernels.begin(), node_kernels.end());
  return !node_kernels.empty() && distinct.size() == node_kernels.size();
}

namespace {
constexpr std::pair<Provenance, const char*> kProvenanceNames[] = {
    {Provenance::kExact, "exact"},
    {Provenance::kHardware, "hardware"},
    {Provenance::kNotMeasured, "not measured"},
};
}  // namespace

const char* ProvenanceName(Provenance provenance) {
  return internal::NameIn(kProvenanceNames, provenance, "not measured");
}

std::optional<Provenance> ProvenanceFromName(const std::string& name) {
  return internal::ValueNamed(kProvenanceNames, name);
}

namespace {
constexpr std::pair<CountedBy, const char*> kCountedByNames[] = {
    {CountedBy::kSassMetrics, "sass metrics"},
    {CountedBy::kRangeProfiler, "range profiler"},
    {CountedBy::kEmulated, "emulated"},
};
}  // namespace

const char* CountedByName(CountedBy counted_by) { return internal::NameIn(kCountedByNames, counted_by, "?"); }

std::optional<CountedBy> CountedByFromName(const std::string& name) {
  return internal::ValueNamed(kCountedByNames, name);
}

double KindCounts::ways() const {
  if (!ideal_known() || ideal_wavefronts == 0) return 1.0;
  return static_cast<double>(wavefronts) / static_cast<double>(ideal_wavefronts);
}

KindCounts ExactCounts(const KindCounts& counts) {
  if (counts.ideal_provenance == Provenance::kExact) return counts;
  KindCounts exact = counts;
  exact.ideal_wavefronts = 0;
  exact.ideal_provenance = Provenance::kNotMeasured;
  return exact;
}

namespace {
// CUPTI reports counters as doubles; they are integral. Round, and clamp the impossible negatives.
uint64_t ToCount(double value) { return value <= 0.0 ? 0 : static_cast<uint64_t>(std::llround(value)); }

const double* Find(const MetricValues& values, const char* name) {
  if (name == nullptr) return nullptr;
  const auto it = values.find(name);
  return it == values.end() ? nullptr : &it->second;
}

// The hardware wavefronts the exact counts of `kind` should equal: its own, plus those of the kind
// its hardware pair also counts.
uint64_t ExpectedHardwareWavefronts(const LaunchRecord& record, const MemoryKindInfo& info) {
  uint64_t wavefronts = record.kinds[info.kind].wavefronts;
  if (info.hardware_also_counts)
    wavefronts = AddCounts(wavefronts, record.kinds[*info.hardware_also_counts].wavefronts, "wavefront");
  return wavefronts;
}

// Whether the record holds hardware readings of `info`'s kind.
bool HardwareRead(const LaunchRecord& record, const MemoryKindInfo& info) {
  if (record.counted_by != CountedBy::kRangeProfiler) return false;
  return info.ideal == IdealSource::kHardwarePair ||
         (info.ideal == IdealSource::kHardwarePairOnRequest &&
          record.kinds[info.kind].ideal_provenance == Provenance::kHardware);
}

uint64_t InstrumentedIdeal(const MetricValues& values, const MemoryKindInfo& info) {
  const double* wavefronts = Find(values, info.wavefronts_metric);
  const double* conflicts = Find(values, info.conflicts_metric);
  if (wavefronts == nullptr || conflicts == nullptr) return 0;
  return ToCount(*wavefronts - *conflicts);
}

// The ideal of one kind from `values`. The ideal of the kind its hardware pair also counts is
// derived here again from `values`, whatever the table's order.
void SetIdeal(const MetricValues& values, const MemoryKindInfo& info, LaunchRecord& record) {
  KindCounts& counts = record.kinds[info.kind];
  const double* hw_wavefronts = Find(values, info.hardware_wavefronts_metric);
  const double* hw_conflicts = Find(values, info.hardware_conflicts_metric);
  if (hw_wavefronts != nullptr && hw_conflicts != nullptr)
    record.hardware[info.kind] = {ToCount(*hw_wavefronts), ToCount(*hw_conflicts)};
  switch (info.ideal) {
    case IdealSource::kInstrumentedConflicts:
      counts.ideal_wavefronts = InstrumentedIdeal(values, info);
      counts.ideal_provenance =
          Find(values, info.conflicts_metric) != nullptr ? Provenance::kExact : Provenance::kNotMeasured;
      return;
    case IdealSource::kHardwarePair:
    case IdealSource::kHardwarePairOnRequest: {
      if (hw_wavefronts == nullptr || hw_conflicts == nullptr) break;
      // The hardware counters over-count by the same amount in both readings (other L1 traffic),
      // so their difference is the ideal, exactly, in every run measured on the H100. The pair of
      // some kinds also counts another kind's traffic (LDS counts LDSM): take its exact ideal off.
      double ideal = *hw_wavefronts - *hw_conflicts;
      if (info.hardware_also_counts)
        ideal -= static_cast<double>(InstrumentedIdeal(values, InfoOf(*info.hardware_also_counts)));
      counts.ideal_wavefronts = ToCount(ideal);
      counts.ideal_provenance =
          info.ideal == IdealSource::kHardwarePair ? Provenance::kExact : Provenance::kHardware;
      return;
    }
    case IdealSource::kSassOnly:  // a range-profiler session has no such counter
    case IdealSource::kNone:
      break;
  }
  counts.ideal_wavefronts = 0;
  counts.ideal_provenance = Provenance::kNotMeasured;
}
}  // namespace

void SetKindCounts(const MetricValues& values, LaunchRecord& record) {
  record.counted_by = CountedBy::kRangeProfiler;
  for (const MemoryKindInfo& info : MemoryKinds()) {
    KindCounts& counts = record.kinds[info.kind];
    const double* instructions = Find(values, info.instructions_metric);
    record.unsupported[info.kind] = instructions == nullptr;
    counts.instructions = instructions != nullptr ? ToCount(*instructions) : 0;
    const double* wavefronts = Find(values, info.wavefronts_metric);
    counts.wavefronts = wavefronts != nullptr ? ToCount(*wavefronts) : 0;
    SetIdeal(values, info, record);
    // Its instructions alone would read as a kind without traffic.
    if (!RangeProfilerCounts(info)) record.not_counted[info.kind] = true;
  }
}

void SetSassCounts(const PerKind<KindCounts>& sums, const PerKind<bool>& unsupported, LaunchRecord& record) {
  record.counted_by = CountedBy::kSassMetrics;
  record.unsupported = unsupported;
  for (const MemoryKindInfo& info : MemoryKinds()) {
    KindCounts& counts = record.kinds[info.kind];
    counts = KindCounts{};
    if (unsupported[info.kind]) {
      counts.ideal_provenance = Provenance::kNotMeasured;
      continue;
    }
    counts.instructions = sums[info.kind].instructions;
    // No wavefront counter for the kind (distributed shared memory): instructions only.
    const bool measured = TrafficMeasured(info, /*sass=*/true);
    counts.wavefronts = measured ? sums[info.kind].wavefronts : 0;
    // The SASS ideal is instrumented for every kind, but only where it was checked against ncu's
    // Source page is it recorded (docs/counters.md): the others stay unmeasured.
    const bool exact = measured && info.sass_ideal_exact;
    counts.ideal_wavefronts = exact ? sums[info.kind].ideal_wavefronts : 0;
    counts.ideal_provenance = exact ? Provenance::kExact : Provenance::kNotMeasured;
  }
}

bool LaunchRecord::hardware_differs() const {
  for (const MemoryKindInfo& info : MemoryKinds()) {
    const KindCounts& counts = kinds[info.kind];
    if (!HardwareRead(*this, info)) continue;
    uint64_t conflicts = counts.conflicts();
    if (info.hardware_also_counts)
      conflicts = AddCounts(conflicts, kinds[*info.hardware_also_counts].conflicts(), "conflict");
    if (hardware[info.kind].wavefronts != ExpectedHardwareWavefronts(*this, info) ||
        hardware[info.kind].bank_conflicts != conflicts)
      return true;
  }
  return false;
}

namespace {
// An LDS/STS needs at most 4 ideal wavefronts per executed instruction (1 up to 4 bytes, 2 for 8,
// 4 for 16), so whatever widths a launch mixes its ideal is at most 4 times its instructions (and
// may be fewer than them: a warp whose lanes are all predicated off executes without a wavefront).
// Only an ideal above that says something is off, and only that is noted.
void NoteIdealVersusInstructions(MemoryKind kind, const KindCounts& c, std::vector<std::string>& notes) {
  constexpr uint64_t kMostIdealPerInstruction = 4;
  if (!c.ideal_known() || c.instructions > UINT64_MAX / kMostIdealPerInstruction ||
      c.ideal_wavefronts <= c.instructions * kMostIdealPerInstruction)
    return;
  std::ostringstream note;
  note << InfoOf(kind).title << ": ideal wavefronts (" << c.ideal_wavefronts << ") above 4 per instruction ("
       << c.instructions << " instructions); no access width gives that: the counts may be off";
  notes.push_back(note.str());
}
}  // namespace

void AddConsistencyNotes(LaunchRecord& record) {
  NoteIdealVersusInstructions(MemoryKind::kSharedLoad, record.loads(), record.notes);
  NoteIdealVersusInstructions(MemoryKind::kSharedStore, record.stores(), record.notes);
  if (record.hardware_differs()) {
    std::ostringstream note;
    note << "hardware counters differ from the exact counts (they also count other L1 traffic):";
    const char* separator = " ";
    for (const MemoryKindInfo& info : MemoryKinds()) {
      if (!HardwareRead(record, info)) continue;
      note << separator << info.label << " " << record.hardware[info.kind].wavefronts << " wf / "
           << record.hardware[info.kind].bank_conflicts << " conflicts";
      separator = ", ";
    }
    record.notes.push_back(note.str());
  }
  for (const MemoryKindInfo& info : MemoryKinds()) {
    if (record.unsupported[info.kind])
      record.notes.push_back(std::string(info.title) +
                             ": not measurable on this device (its counters do not exist)");
  }
}

std::string Describe(MemoryKind kind, const KindCounts& c) {
  std::ostringstream out;
  const MemoryKindInfo& info = InfoOf(kind);
  const std::string unit = TrafficUnit(kind);
  out << info.label << ": " << c.instructions << " instructions";
  // A kind one way counts traffic of is not shown by records of the other (not_counted).
  if (!TrafficMeasured(info, /*sass=*/true) && !TrafficMeasured(info, /*sass=*/false))
    return out.str() + " (" + unit + " not measurable)";
  out << ", " << c.wavefronts << " " << unit << ", ";
  if (!c.ideal_known()) return out.str() + "ideal not measured";
  // Sectors above the ideal are excess (uncoalesced), wavefronts above it bank conflicts.
  out << c.ideal_wavefronts << " ideal, " << c.conflicts() << " " << ExcessName(kind) << " (" << c.ways()
      << "-way";
  if (c.ideal_provenance == Provenance::kHardware) out << ", from hardware counters";
  out << ")";
  return out.str();
}

bool IsShown(const LaunchRecord& record, MemoryKind kind) {
  if (record.not_counted[kind]) return false;
  return kind == MemoryKind::kSharedLoad || kind == MemoryKind::kSharedStore || record.kinds[kind].any() ||
         record.unsupported[kind];
}

bool IsCompared(const LaunchRecord* before, const LaunchRecord* after, MemoryKind kind) {
  return (before == nullptr || !before->not_counted[kind]) && (after == nullptr || !after->not_counted[kind]);
}

void MarkKindsNewerThan(int baseline_version, LaunchRecord& record) {
  for (const MemoryKindInfo& info : MemoryKinds())
    if (info.first_baseline_version > baseline_version) record.not_counted[info.kind] = true;
}

void MarkKindsNotEmulated(LaunchRecord& record) {
  for (const MemoryKindInfo& info : MemoryKinds())
    if (!info.emulated) record.not_counted[info.kind] = true;
}

void SetEmulatedCounts(const PerKind<KindCounts>& sums, LaunchRecord& record) {
  SetSassCounts(sums, PerKind<bool>{}, record);
  record.counted_by = CountedBy::kEmulated;
  MarkKindsNotEmulated(record);
  for (const MemoryKindInfo& info : MemoryKinds()) {
    if (!info.emulated || SassMetricsCount(info)) continue;
    const KindCounts& sum = sums[info.kind];
    record.kinds[info.kind] = KindCounts{sum.instructions, sum.wavefronts, 0, Provenance::kNotMeasured};
  }
}

std::vector<MemoryKind> ShownKinds(const LaunchRecord& record) {
  std::vector<MemoryKind> kinds;
  for (const MemoryKindInfo& info : MemoryKinds())
    if (IsShown(record, info.kind)) kinds.push_back(info.kind);
  return kinds;
}

std::vector<MemoryKind> ShownKinds(const std::vector<LaunchRecord>& records) {
  std::vector<MemoryKind> kinds;
  for (const MemoryKindInfo& info : MemoryKinds()) {
    const bool shown = info.kind == MemoryKind::kSharedLoad || info.kind == MemoryKind::kSharedStore ||
                       std::any_of(records.begin(), records.end(),
                                   [&](const LaunchRecord& r) { return IsShown(r, info.kind); });
    if (shown) kinds.push_back(info.kind);
  }
  return kinds;
}

KindCounts SumCounts(const std::vector<LaunchRecord>& records, MemoryKind kind) {
  KindCounts total;
  for (const LaunchRecord& record : records) total += record.kinds[kind];
  if (!total.ideal_known()) total.ideal_wavefronts = 0;
  return total;
}

std::string DescribeKinds(const LaunchRecord& record) {
  std::string text;
  for (const MemoryKind kind : ShownKinds(record)) {
    text += text.empty() ? "" : " | ";
    text += record.unsupported[kind] ? std::string(InfoOf(kind).label) + " not measurable on this device"
                                     : Describe(kind, record.kinds[kind]);
  }
  return text;
}

std::string Summary(const LaunchRecord& record) {
  return record.kernel + " <<<" + ToString(record.grid) + ", " + ToString(record.block) + ">>> " +
         DescribeKinds(record);
}

void PrintTo(const LaunchRecord& record, std::ostream* out) { *out << Summary(record); }

}  // namespace bankcheck
