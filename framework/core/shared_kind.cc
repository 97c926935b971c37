#include "bankcheck/shared_kind.h"

namespace bankcheck {

namespace {
// Metric names as listed for GH100 by `ncu --query-metrics --chip gh100`; which ones exist and what
// each counts was measured on the H100 (docs/counters.md). Instrumented ("sass") metrics are exact
// and all fit in one replay pass; the ld/st hardware pairs take a second pass, and the atom and
// gmma pairs one more each. The last field: the SASS per-instruction ideal checked against ncu's Source
// page (shared atomics: 256-, 32- and 1-bin histograms; wgmma: the wgmma_layouts cases; H100,
// 2026-11-25).
constexpr std::array<SharedKindInfo, kSharedKindCount> kKinds = {{
    {SharedKind::kLoad, "shared_ld", "ld", "lds", "shared loads (LDS)", "LDS", "load",
     "smsp__sass_inst_executed_op_shared_ld.sum",
     "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", nullptr,
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
     "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", IdealSource::kHardwarePair,
     SharedKind::kLdmatrix, true},
    {SharedKind::kStore, "shared_st", "st", "sts", "shared stores (STS)", "STS", "store",
     "smsp__sass_inst_executed_op_shared_st.sum",
     "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum", nullptr,
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
     "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", IdealSource::kHardwarePair,
     SharedKind::kStmatrix, true},
    {SharedKind::kAtomic, "shared_atom", "atom", "atoms", "shared atomics (ATOMS)", "ATOMS", "shared atomic",
     "smsp__sass_inst_executed_op_shared_atom.sum",
     "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", nullptr,
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
     "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum", IdealSource::kHardwarePairOnRequest,
     std::nullopt, true},
    {SharedKind::kLdmatrix, "shared_ldsm", "ldsm", "ldsm", "ldmatrix (LDSM)", "LDSM", "ldmatrix",
     "smsp__sass_inst_executed_op_ldsm.sum", "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
     "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum", nullptr, nullptr,
     IdealSource::kInstrumentedConflicts, std::nullopt, true},
    {SharedKind::kStmatrix, "shared_stsm", "stsm", "stsm", "stmatrix (STSM)", "STSM", "stmatrix",
     "smsp__sass_inst_executed_op_shared_stsm.sum",
     "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum",
     "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum", nullptr, nullptr,
     IdealSource::kInstrumentedConflicts, std::nullopt, true},
    {SharedKind::kCpAsync, "shared_ldgsts", "ldgsts", "ldgsts", "cp.async into shared (LDGSTS)", "LDGSTS",
     "cp.async", "smsp__sass_inst_executed_op_ldgsts.sum",
     "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
     "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum", nullptr, nullptr,
     IdealSource::kInstrumentedConflicts, std::nullopt, true},
    {SharedKind::kWgmma, "shared_gmma", "gmma", "gmma", "wgmma operands from shared (HGMMA)", "HGMMA",
     "wgmma operand", "smsp__sass_inst_executed_op_shared_gmma.sum",
     "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum", nullptr,
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum",
     "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum", IdealSource::kHardwarePairOnRequest,
     std::nullopt, true},
    {SharedKind::kDsmem, "shared_dsmem", "dsmem", "dsmem", "distributed shared memory in a cluster",
     "LD.cluster", "distributed shared access", "smsp__sass_inst_executed_op_dshared.sum", nullptr, nullptr,
     nullptr, nullptr, IdealSource::kNone, std::nullopt, false},
}};

template <typename Match>
std::optional<SharedKind> Find(Match match) {
  for (const SharedKindInfo& info : kKinds)
    if (match(info)) return info.kind;
  return std::nullopt;
}
}  // namespace

const std::array<SharedKindInfo, kSharedKindCount>& SharedKinds() { return kKinds; }

const SharedKindInfo& InfoOf(SharedKind kind) { return kKinds[IndexOf(kind)]; }

std::optional<SharedKind> SharedKindFromKey(const std::string& key) {
  return Find([&](const SharedKindInfo& info) { return key == info.key || key == info.label; });
}

std::optional<SharedKind> SharedKindFromOp(const std::string& op) {
  return Find([&](const SharedKindInfo& info) { return op == info.op; });
}

}  // namespace bankcheck
