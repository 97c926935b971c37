#include "bankcheck/record_json.h"

#include <cmath>

#include "json_io.h"

namespace bankcheck {
namespace {

using internal::FieldReader;
using nlohmann::json;

json DimToJson(const Dim3& dim) { return json::array({dim.x, dim.y, dim.z}); }

json CountsToJson(const SharedCounts& counts) {
  return {{"instructions", counts.instructions},
          {"wavefronts", counts.wavefronts},
          {"ideal", counts.ideal_wavefronts},
          {"conflicts", counts.conflicts()}};
}

Dim3 DimFromJson(const FieldReader& field) {
  field.RequireArray();
  if (field.json().size() != 3) field.Fail("an array of 3 integers [x, y, z]");
  return Dim3{field.Element(0).Unsigned32(), field.Element(1).Unsigned32(), field.Element(2).Unsigned32()};
}

SharedCounts CountsFromJson(const FieldReader& field) {
  field.AllowOnlyFields({"instructions", "wavefronts", "ideal", "conflicts"});
  SharedCounts counts;
  counts.instructions = field.Field("instructions").Unsigned();
  counts.wavefronts = field.Field("wavefronts").Unsigned();
  counts.ideal_wavefronts = field.Field("ideal").Unsigned();
  // "conflicts" is derived; it is stored for readers, and must agree with the other two.
  const FieldReader conflicts = field.Field("conflicts");
  if (conflicts.Unsigned() != counts.conflicts()) {
    conflicts.FailWith("is " + std::to_string(conflicts.Unsigned()) + ", but wavefronts - ideal is " +
                       std::to_string(counts.conflicts()));
  }
  return counts;
}

}  // namespace

json LaunchRecordToJson(const LaunchRecord& record, RecordDetail detail) {
  json out = {{"kernel", record.kernel},
              {"grid", DimToJson(record.grid)},
              {"block", DimToJson(record.block)},
              {"dynamic_shared_bytes", record.dynamic_shared_bytes},
              {"shared_ld", CountsToJson(record.loads)},
              {"shared_st", CountsToJson(record.stores)}};
  if (detail == RecordDetail::kFull) {
    out["mangled"] = record.mangled_kernel;
    out["hardware"] = {{"ld_wavefronts", record.hardware_loads.wavefronts},
                       {"ld_bank_conflicts", record.hardware_loads.bank_conflicts},
                       {"st_wavefronts", record.hardware_stores.wavefronts},
                       {"st_bank_conflicts", record.hardware_stores.bank_conflicts}};
    if (!record.extra_metrics.empty()) out["extra_metrics"] = record.extra_metrics;
    if (!record.notes.empty()) out["notes"] = record.notes;
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
  launch.AllowOnlyFields({"kernel", "mangled", "grid", "block", "dynamic_shared_bytes", "shared_ld",
                          "shared_st", "hardware", "extra_metrics", "notes"});
  LaunchRecord record;
  record.kernel = launch.Field("kernel").String();
  if (launch.Has("mangled")) record.mangled_kernel = launch.Field("mangled").String();
  record.grid = DimFromJson(launch.Field("grid"));
  record.block = DimFromJson(launch.Field("block"));
  record.dynamic_shared_bytes = launch.Field("dynamic_shared_bytes").Unsigned32();
  record.loads = CountsFromJson(launch.Field("shared_ld"));
  record.stores = CountsFromJson(launch.Field("shared_st"));
  if (launch.Has("hardware")) {
    const FieldReader hardware = launch.Field("hardware");
    hardware.AllowOnlyFields({"ld_wavefronts", "ld_bank_conflicts", "st_wavefronts", "st_bank_conflicts"});
    record.hardware_loads.wavefronts = hardware.Field("ld_wavefronts").Unsigned();
    record.hardware_loads.bank_conflicts = hardware.Field("ld_bank_conflicts").Unsigned();
    record.hardware_stores.wavefronts = hardware.Field("st_wavefronts").Unsigned();
    record.hardware_stores.bank_conflicts = hardware.Field("st_bank_conflicts").Unsigned();
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
  return record;
}

std::vector<LaunchRecord> LaunchRecordsFromJson(const json& value, const std::string& where,
                                                const std::string& advice, const std::string& field_path) {
  const FieldReader launches(value, where, advice, field_path);
  launches.RequireArray();
  std::vector<LaunchRecord> records;
  for (size_t i = 0; i < value.size(); ++i) {
    records.push_back(
        LaunchRecordFromJson(value[i], where, advice, field_path + "[" + std::to_string(i) + "]"));
  }
  return records;
}

}  // namespace bankcheck
