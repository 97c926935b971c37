#include "core/records/record_json.h"

#include <cmath>

#include "bankcheck/core/limits.h"
#include "core/platform/json_io.h"

namespace bankcheck {
namespace {

using nlohmann::json;

json DimToJson(const Dim3& dim) { return json::array({dim.x, dim.y, dim.z}); }

json CountsToJson(const KindCounts& counts) {
  json out = {{"instructions", counts.instructions}, {"wavefronts", counts.wavefronts}};
  if (counts.ideal_known()) {
    out["ideal"] = counts.ideal_wavefronts;
    out["conflicts"] = counts.conflicts();
  }
  if (counts.ideal_provenance != Provenance::kExact)
    out["ideal_source"] = ProvenanceName(counts.ideal_provenance);
  return out;
}

Dim3 DimFromJson(const FieldReader& field) {
  field.RequireArray();
  if (field.json().size() != 3) field.Fail("an array of 3 integers [x, y, z]");
  return Dim3{field.Element(0).Unsigned32(), field.Element(1).Unsigned32(), field.Element(2).Unsigned32()};
}

Provenance ProvenanceFromJson(const FieldReader& field) {
  if (const std::optional<Provenance> provenance = ProvenanceFromName(field.String())) return *provenance;
  field.Fail("\"exact\", \"hardware\" or \"not measured\"");
  return Provenance::kExact;
}

// "conflicts" and "excess" are wavefronts - ideal: stored for readers, and must agree with the two.
void CheckWavefrontsBeyondIdeal(const FieldReader& field, uint64_t wavefronts_beyond_ideal) {
  if (field.Unsigned() != wavefronts_beyond_ideal) {
    field.FailWith("is " + std::to_string(field.Unsigned()) + ", but wavefronts - ideal is " +
                   std::to_string(wavefronts_beyond_ideal));
  }
}

KindCounts CountsFromJson(const FieldReader& field) {
  field.AllowOnlyFields({"instructions", "wavefronts", "ideal", "conflicts", "ideal_source"});
  KindCounts counts;
  counts.instructions = field.Field("instructions").Unsigned();
  counts.wavefronts = field.Field("wavefronts").Unsigned();
  if (field.Has("ideal_source")) counts.ideal_provenance = ProvenanceFromJson(field.Field("ideal_source"));
  if (!counts.ideal_known()) return counts;
  counts.ideal_wavefronts = field.Field("ideal").Unsigned();
  CheckWavefrontsBeyondIdeal(field.Field("conflicts"), counts.conflicts());
  return counts;
}

// The kind `key` names ("shared_ld"); fails at `field` when it names none.
MemoryKind KindNamed(const FieldReader& field, const std::string& key) {
  const std::optional<MemoryKind> kind = MemoryKindFromKey(key);
  if (!kind) field.FailWith("names \"" + key + "\", which is not a kind of memory instruction");
  return *kind;
}

json FramesToJson(const std::vector<SourceFrame>& frames) {
  json out = json::array();
  for (const SourceFrame& frame : frames) out.push_back({{"file", frame.file}, {"line", frame.line}});
  return out;
}

// "inline_chain" is absent for an instruction that was not inlined.
std::vector<SourceFrame> FramesFromJson(const FieldReader& instruction) {
  std::vector<SourceFrame> frames;
  if (!instruction.Has("inline_chain")) return frames;
  const FieldReader chain = instruction.Field("inline_chain");
  chain.RequireArray();
  if (chain.json().size() > kMaxInlineFrames) {
    chain.FailWith("holds " + std::to_string(chain.json().size()) + " frames, more than the " +
                   std::to_string(kMaxInlineFrames) + " bankcheck reads for one instruction (limits.h)");
  }
  for (size_t i = 0; i < chain.json().size(); ++i) {
    const FieldReader frame = chain.Element(i);
    frame.AllowOnlyFields({"file", "line"});
    frames.push_back({frame.Field("file").String(), frame.Field("line").Unsigned32()});
  }
  return frames;
}

json InstructionsToJson(const std::vector<InstructionCounts>& instructions) {
  json out = json::array();
  for (const InstructionCounts& instruction : instructions) {
    json entry = {{"pc", instruction.pc_offset},
                  {"opcode", instruction.opcode},
                  {"kind", InfoOf(instruction.kind).key},
                  {"file", instruction.file},
                  {"line", instruction.line},
                  {"executions", instruction.executions},
                  {"wavefronts", instruction.wavefronts},
                  {"ideal", instruction.ideal_wavefronts},
                  {"excess", instruction.excess()}};
    // Only for inlined code: most instructions are not, and results files hold every launch's table.
    if (!instruction.inline_chain.empty()) entry["inline_chain"] = FramesToJson(instruction.inline_chain);
    out.push_back(std::move(entry));
  }
  return out;
}

InstructionCounts InstructionFromJson(const FieldReader& field) {
  field.AllowOnlyFields({"pc", "opcode", "kind", "file", "line", "inline_chain", "executions", "wavefronts",
                         "ideal", "excess"});
  InstructionCounts instruction;
  instruction.pc_offset = field.Field("pc").Unsigned32();
  instruction.opcode = field.Field("opcode").String();
  const FieldReader kind = field.Field("kind");
  instruction.kind = KindNamed(kind, kind.String());
  instruction.file = field.Field("file").String();
  instruction.line = field.Field("line").Unsigned32();
  instruction.inline_chain = FramesFromJson(field);
  instruction.executions = field.Field("executions").Unsigned();
  instruction.wavefronts = field.Field("wavefronts").Unsigned();
  instruction.ideal_wavefronts = field.Field("ideal").Unsigned();
  CheckWavefrontsBeyondIdeal(field.Field("excess"), instruction.excess());
  return instruction;
}

json LinesToJson(const std::vector<LineRecord>& lines) {
  json out = json::array();
  for (const LineRecord& line : lines) {
    out.push_back({{"file", line.file},
                   {"line", line.line},
                   {"code", line.code},
                   {"occurrence", line.occurrence},
                   {"kind", InfoOf(line.kind).key},
                   {"executions", line.executions},
                   {"wavefronts", line.wavefronts},
                   {"ideal", line.ideal_wavefronts},
                   {"opcodes", line.opcodes}});
  }
  return out;
}

std::vector<LineRecord> LinesFromJson(const FieldReader& field) {
  field.RequireArray();
  std::vector<LineRecord> lines;
  lines.reserve(field.json().size());
  for (size_t i = 0; i < field.json().size(); ++i) {
    const FieldReader entry = field.Element(i);
    entry.AllowOnlyFields(
        {"file", "line", "code", "occurrence", "kind", "executions", "wavefronts", "ideal", "opcodes"});
    LineRecord line;
    line.file = entry.Field("file").String();
    line.line = entry.Field("line").Unsigned32();
    line.code = entry.Field("code").String();
    line.occurrence = entry.Field("occurrence").Unsigned32();
    const FieldReader kind = entry.Field("kind");
    line.kind = KindNamed(kind, kind.String());
    line.executions = entry.Field("executions").Unsigned();
    line.wavefronts = entry.Field("wavefronts").Unsigned();
    line.ideal_wavefronts = entry.Field("ideal").Unsigned();
    line.opcodes = entry.Field("opcodes").StringArray();
    lines.push_back(std::move(line));
  }
  return lines;
}

// "instructions" requires "attributed_launches" (how many launches its counts add up).
void ReadAttribution(const FieldReader& launch, LaunchRecord& record) {
  if (!launch.Has("instructions") && !launch.Has("attributed_launches")) return;
  record.attributed_launches = launch.Field("attributed_launches").Unsigned32();
  if (!launch.Has("instructions")) return;
  const FieldReader instructions = launch.Field("instructions");
  instructions.RequireArray();
  for (size_t i = 0; i < instructions.json().size(); ++i)
    record.instructions.push_back(InstructionFromJson(instructions.Element(i)));
}

// A block per kind: shared_ld and shared_st always (a reader sees that a launch had none), the
// other kinds when the launch executed them.
bool Written(const LaunchRecord& record, MemoryKind kind) {
  if (record.not_counted[kind]) return false;
  return kind == MemoryKind::kSharedLoad || kind == MemoryKind::kSharedStore || record.kinds[kind].any();
}

}  // namespace

json LaunchRecordToJson(const LaunchRecord& record, RecordDetail detail) {
  json out = {{"kernel", record.kernel},
              {"grid", DimToJson(record.grid)},
              {"block", DimToJson(record.block)},
              {"dynamic_shared_bytes", record.dynamic_shared_bytes}};
  if (!record.graph_kernels.empty()) out["graph_kernels"] = record.graph_kernels;
  for (const MemoryKindInfo& info : MemoryKinds())
    if (Written(record, info.kind)) {
      const KindCounts& counts = record.kinds[info.kind];
      out[info.key] = CountsToJson(detail == RecordDetail::kFull ? counts : ExactCounts(counts));
    }
  json not_counted = json::array();
  for (const MemoryKindInfo& info : MemoryKinds())
    if (record.not_counted[info.kind]) not_counted.push_back(info.key);
  if (!not_counted.empty()) out["not_counted"] = std::move(not_counted);
  // The per-line counts, keyed: exact, so baselines keep them too.
  if (record.lines) out["lines"] = LinesToJson(*record.lines);
  // A baseline's launch derived by the emulator says so (first baselines without a GPU); measured
  // ones, as every baseline before, leave it out.
  if (detail != RecordDetail::kFull && record.counted_by == CountedBy::kEmulated)
    out["counters"] = CountedByName(record.counted_by);
  if (detail == RecordDetail::kFull) {
    out["mangled"] = record.mangled_kernel;
    out["counters"] = CountedByName(record.counted_by);
    json hardware = json::object();
    json unsupported = json::array();
    for (const MemoryKindInfo& info : MemoryKinds()) {
      const HardwareReadings& readings = record.hardware[info.kind];
      if (readings.wavefronts != 0 || readings.bank_conflicts != 0 || Written(record, info.kind)) {
        if (info.hardware_wavefronts_metric != nullptr) {
          hardware[std::string(info.label) + "_wavefronts"] = readings.wavefronts;
          hardware[std::string(info.label) + "_bank_conflicts"] = readings.bank_conflicts;
        }
      }
      if (record.unsupported[info.kind]) unsupported.push_back(info.key);
    }
    if (record.counted_by == CountedBy::kRangeProfiler) out["hardware"] = std::move(hardware);
    if (!unsupported.empty()) out["unsupported"] = std::move(unsupported);
    if (!record.extra_metrics.empty()) out["extra_metrics"] = record.extra_metrics;
    if (!record.notes.empty()) out["notes"] = record.notes;
    // Per-instruction counts vary with the compiler's code: results only, never baselines.
    if (!record.instructions.empty()) {
      out["attributed_launches"] = record.attributed_launches;
      out["instructions"] = InstructionsToJson(record.instructions);
    }
  }
  return out;
}

json LaunchRecordsToJson(const std::vector<LaunchRecord>& records, RecordDetail detail) {
  json out = json::array();
  for (const LaunchRecord& record : records) out.push_back(LaunchRecordToJson(record, detail));
  return out;
}

LaunchRecord LaunchRecordFromJson(const json& value, const std::string& where, const std::string& advice,
                                  const std::string& field_path) {
  const FieldReader launch(value, where, advice, field_path);
  std::vector<std::string> fields = {
      "kernel",      "mangled",       "grid",       "block",         "dynamic_shared_bytes", "hardware",
      "unsupported", "extra_metrics", "notes",      "graph_kernels", "attributed_launches",  "instructions",
      "counters",    "lines",         "not_counted"};
  for (const MemoryKindInfo& info : MemoryKinds()) fields.push_back(info.key);
  launch.AllowOnlyFields(fields);
  LaunchRecord record;
  record.kernel = launch.Field("kernel").String();
  if (launch.Has("mangled")) record.mangled_kernel = launch.Field("mangled").String();
  record.grid = DimFromJson(launch.Field("grid"));
  record.block = DimFromJson(launch.Field("block"));
  record.dynamic_shared_bytes = launch.Field("dynamic_shared_bytes").Unsigned32();
  if (launch.Has("graph_kernels")) record.graph_kernels = launch.Field("graph_kernels").StringArray();
  record.loads() = CountsFromJson(launch.Field("shared_ld"));
  record.stores() = CountsFromJson(launch.Field("shared_st"));
  for (const MemoryKindInfo& info : MemoryKinds())
    if (launch.Has(info.key)) record.kinds[info.kind] = CountsFromJson(launch.Field(info.key));
  // Results written before "counters" existed came from counter sessions, with hardware readings.
  record.counted_by = launch.Has("hardware") ? CountedBy::kRangeProfiler : CountedBy::kSassMetrics;
  if (launch.Has("counters")) {
    const FieldReader counters = launch.Field("counters");
    const std::optional<CountedBy> counted_by = CountedByFromName(counters.String());
    if (!counted_by) counters.FailWith("is not \"sass metrics\", \"range profiler\" or \"emulated\"");
    record.counted_by = *counted_by;
  }
  if (launch.Has("hardware")) {
    const FieldReader hardware = launch.Field("hardware");
    hardware.RequireObject();
    for (const auto& item : hardware.json().items()) {
      const std::string& key = item.key();
      const size_t underscore = key.find('_');
      const std::optional<MemoryKind> kind =
          underscore == std::string::npos ? std::nullopt : MemoryKindFromKey(key.substr(0, underscore));
      const std::string reading = underscore == std::string::npos ? key : key.substr(underscore + 1);
      if (!kind || (reading != "wavefronts" && reading != "bank_conflicts"))
        hardware.Field(key).FailWith(
            "is not a hardware reading (<kind>_wavefronts or <kind>_bank_conflicts)");
      uint64_t& reading_value =
          reading == "wavefronts" ? record.hardware[*kind].wavefronts : record.hardware[*kind].bank_conflicts;
      reading_value = hardware.Field(key).Unsigned();
    }
  }
  if (launch.Has("not_counted")) {
    const FieldReader not_counted = launch.Field("not_counted");
    for (const std::string& key : not_counted.StringArray()) {
      const MemoryKind kind = KindNamed(not_counted, key);
      if (record.kinds[kind].any())
        not_counted.FailWith("names \"" + key + "\", which the launch has counts of");
      record.not_counted[kind] = true;
    }
  }
  if (launch.Has("unsupported")) {
    const FieldReader unsupported = launch.Field("unsupported");
    for (const std::string& key : unsupported.StringArray())
      record.unsupported[KindNamed(unsupported, key)] = true;
  }
  if (launch.Has("extra_metrics")) {
    const FieldReader metrics = launch.Field("extra_metrics");
    metrics.RequireObject();
    for (const auto& item : metrics.json().items()) {
      // JSON has no NaN: a metric that had no value is written as null.
      record.extra_metrics[item.key()] =
          item.value().is_null() ? std::nan("") : metrics.Field(item.key()).Number();
    }
  }
  if (launch.Has("notes")) record.notes = launch.Field("notes").StringArray();
  ReadAttribution(launch, record);
  if (launch.Has("lines")) record.lines = LinesFromJson(launch.Field("lines"));
  return record;
}

std::vector<LaunchRecord> LaunchRecordsFromJson(const json& value, const std::string& where,
                                                const std::string& advice, const std::string& field_path) {
  const FieldReader launches(value, where, advice, field_path);
  launches.RequireArray();
  if (value.size() > kMaxLaunchesPerCase) {
    launches.FailWith("holds " + std::to_string(value.size()) + " launches, more than the " +
                      std::to_string(kMaxLaunchesPerCase) + " bankcheck reads for one case (limits.h)");
  }
  std::vector<LaunchRecord> records;
  records.reserve(value.size());
  for (size_t i = 0; i < value.size(); ++i) {
    records.push_back(
        LaunchRecordFromJson(value[i], where, advice, field_path + "[" + std::to_string(i) + "]"));
  }
  return records;
}

}  // namespace bankcheck
