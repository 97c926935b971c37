#pragma once
// LaunchRecord <-> JSON, the per-launch schema shared by baseline and results files:
//
//   {"kernel": "transpose<float>", "mangled": "_Z9transposeIfEvPT_PKS0_",
//    "grid": [32, 32, 1], "block": [32, 8, 1], "dynamic_shared_bytes": 0,
//    "shared_ld": {"instructions": 64, "wavefronts": 2048, "ideal": 64, "conflicts": 1984},
//    "shared_st": {"instructions": 64, "wavefronts": 64, "ideal": 64, "conflicts": 0},
//    "hardware": {"ld_wavefronts": 2051, "ld_bank_conflicts": 1987, "st_wavefronts": 64,
//                 "st_bank_conflicts": 0},
//    "attributed_launches": 1,
//    "instructions": [{"pc": 544, "opcode": "LDS", "kind": "shared_ld", "file": "kernels/transpose.cu",
//                      "line": 31, "executions": 64, "wavefronts": 2048, "ideal": 64, "excess": 1984}],
//    "lines": [{"file": "kernels/transpose.cu", "line": 31, "code": "out[i] = tile[x][y];",
//               "occurrence": 0, "kind": "shared_ld", "executions": 64, "wavefronts": 2048,
//               "ideal": 64, "opcodes": ["LDS"]}]}
//
// Baselines hold the exact counts only (RecordDetail::kExact); the mangled name (nvcc mangles
// anonymous namespaces with a per-build hash), the hardware readings, extra metrics, notes and
// per-instruction counts (instruction_counts.h; present only when the launch was attributed) vary
// from build to build or run to run, so only results files carry them. "lines" (the table added up
// by source line and kind, keyed by the line's code: launch_record.h's LineRecord) is in both when
// the launch has it: baselines compare it line by line.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bankcheck/core/launch_record.h"

namespace bankcheck {

enum class RecordDetail {
  kExact,  // baselines: demangled name, geometry, exact shared load/store counts
  kFull,   // results: also "hardware" and, when present, "extra_metrics", "notes" and "instructions"
};

nlohmann::json LaunchRecordToJson(const LaunchRecord& record, RecordDetail detail);
nlohmann::json LaunchRecordsToJson(const std::vector<LaunchRecord>& records, RecordDetail detail);

// Parses one launch. Optional fields ("mangled", "hardware", "extra_metrics", "notes", "instructions" with
// "attributed_launches", "lines") may be absent; unknown fields, wrong types, a "conflicts" that is not
// wavefronts - ideal and an instruction's "excess" that is not wavefronts - ideal throw Error(kBadInput):
//   "<where>: launches[2].shared_ld.wavefronts must be a non-negative integer, but is "12". <advice>"
// `field_path` is the launch's own position ("launches[2]"), prefixed to every field named.
LaunchRecord LaunchRecordFromJson(const nlohmann::json& json, const std::string& where,
                                  const std::string& advice = "", const std::string& field_path = "");
// Parses an array of launches; the elements are named "<field_path>[i]".
std::vector<LaunchRecord> LaunchRecordsFromJson(const nlohmann::json& json, const std::string& where,
                                                const std::string& advice = "",
                                                const std::string& field_path = "launches");

}  // namespace bankcheck
