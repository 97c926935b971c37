// The forms' kernels (forms.h). Each computes through inline PTX chosen so that ptxas emits the SASS
// form the table names; the replay test checks that the kernel's SASS has it.

#include <cuda_runtime_api.h>

#include "emulate/conformance/forms.h"

#define BANKCHECK_FORM(name, body)                                                                      \
  extern "C" __global__ void form_##name(const uint32_t* __restrict__ in, uint32_t* __restrict__ out) { \
    const uint32_t t = threadIdx.x;                                                                     \
    const uint32_t a = __ldg(in + 3 * t), b = __ldg(in + 3 * t + 1), c = __ldg(in + 3 * t + 2);         \
    uint32_t r0 = 0, r1 = 0, r2 = 0, r3 = 0;                                                            \
    body;                                                                                               \
    out[4 * t] = r0;                                                                                    \
    out[4 * t + 1] = r1;                                                                                \
    out[4 * t + 2] = r2;                                                                                \
    out[4 * t + 3] = r3;                                                                                \
  }

#define ASM1(text) asm(text : "=r"(r0) : "r"(a), "r"(b), "r"(c))
// A predicate result as 0 or 1 in r0.
#define ASMP(text) \
  asm("{ .reg .pred p; " text "; selp.u32 %0, 1, 0, p; }" : "=r"(r0) : "r"(a), "r"(b), "r"(c))

// Single precision (semantics_fp32.cc).
BANKCHECK_FORM(fadd, ASM1("add.rn.f32 %0, %1, %2;"))
BANKCHECK_FORM(fadd_ftz, ASM1("add.rn.ftz.f32 %0, %1, %2;"))
BANKCHECK_FORM(fadd_rz, ASM1("add.rz.f32 %0, %1, %2;"))
BANKCHECK_FORM(fadd_sat, ASM1("add.rn.sat.f32 %0, %1, %2;"))
BANKCHECK_FORM(fmul, ASM1("mul.rn.f32 %0, %1, %2;"))
BANKCHECK_FORM(fmul_ftz, ASM1("mul.rn.ftz.f32 %0, %1, %2;"))
BANKCHECK_FORM(ffma, ASM1("fma.rn.f32 %0, %1, %2, %3;"))
BANKCHECK_FORM(ffma_ftz, ASM1("fma.rn.ftz.f32 %0, %1, %2, %3;"))
BANKCHECK_FORM(fmnmx_min, ASM1("min.f32 %0, %1, %2;"))
BANKCHECK_FORM(fmnmx_max, ASM1("max.f32 %0, %1, %2;"))
BANKCHECK_FORM(fmnmx_min_ftz, ASM1("min.ftz.f32 %0, %1, %2;"))
BANKCHECK_FORM(fmnmx_max_nan, ASM1("max.NaN.f32 %0, %1, %2;"))
BANKCHECK_FORM(fsetp_lt, ASMP("setp.lt.f32 p, %1, %2"))
BANKCHECK_FORM(fsetp_ge, ASMP("setp.ge.f32 p, %1, %2"))
BANKCHECK_FORM(fsetp_eq, ASMP("setp.eq.f32 p, %1, %2"))
BANKCHECK_FORM(fsetp_neu, ASMP("setp.neu.f32 p, %1, %2"))
BANKCHECK_FORM(fsetp_gtu, ASMP("setp.gtu.f32 p, %1, %2"))
BANKCHECK_FORM(fsetp_nan, ASMP("setp.nan.f32 p, %1, %2"))
BANKCHECK_FORM(fsetp_num, ASMP("setp.num.f32 p, %1, %2"))
BANKCHECK_FORM(fsetp_lt_ftz, ASMP("setp.lt.ftz.f32 p, %1, %2"))

// Warp shuffles (semantics_move.cc): value a, lane or delta b.
#define SHUFFLE(mode, clamp)                                                                                \
  asm("{ .reg .pred p; shfl.sync." mode ".b32 %0|p, %2, %3, " clamp ", 0xffffffff; selp.u32 %1, 1, 0, p; }" \
      : "=r"(r0), "=r"(r1)                                                                                  \
      : "r"(a), "r"(b))
BANKCHECK_FORM(shfl_idx, SHUFFLE("idx", "0x1f"))
BANKCHECK_FORM(shfl_idx_segment, SHUFFLE("idx", "0x0c1f"))
BANKCHECK_FORM(shfl_up, SHUFFLE("up", "0"))
BANKCHECK_FORM(shfl_down, SHUFFLE("down", "0x1f"))
BANKCHECK_FORM(shfl_bfly, SHUFFLE("bfly", "0x1f"))

// Half-precision constants (semantics_float.cc): nvcc makes them with HFMA2.MMA -RZ, RZ, hi, lo.
BANKCHECK_FORM(hfma2_low, {
  r0 = 7;
  r1 = 0x3c000000u;
  r2 = 0x3c00bc00u;
  r3 = 0x00018001u;
})
BANKCHECK_FORM(hfma2_high, {
  r0 = 0x80010000u;
  r1 = 0x3c003c00u;
  r2 = 0x00070000u;
  r3 = 0x00000400u;
})

// Integer arithmetic (semantics_integer.cc).
BANKCHECK_FORM(iadd3, ASM1("{ .reg .u32 s; add.u32 s, %1, %2; sub.u32 %0, s, %3; }"))
BANKCHECK_FORM(iadd3_carry, asm("{ .reg .u64 x, y, z; mov.b64 x, {%2, %3}; mov.b64 y, {%3, %4}; "
                                "add.u64 z, x, y; mov.b64 {%0, %1}, z; }"
                                : "=r"(r0), "=r"(r1)
                                : "r"(a), "r"(b), "r"(c)))
BANKCHECK_FORM(imad, ASM1("mad.lo.u32 %0, %1, %2, %3;"))
BANKCHECK_FORM(imad_hi_u32, ASM1("mul.hi.u32 %0, %1, %2;"))
BANKCHECK_FORM(imad_hi_s32, ASM1("mul.hi.s32 %0, %1, %2;"))
BANKCHECK_FORM(imad_wide_u32, asm("{ .reg .u64 z; mul.wide.u32 z, %2, %3; mov.b64 {%0, %1}, z; }"
                                  : "=r"(r0), "=r"(r1)
                                  : "r"(a), "r"(b)))
BANKCHECK_FORM(imad_wide_s32, asm("{ .reg .s64 z; mul.wide.s32 z, %2, %3; mov.b64 {%0, %1}, z; }"
                                  : "=r"(r0), "=r"(r1)
                                  : "r"(a), "r"(b)))
BANKCHECK_FORM(lea, ASM1("{ .reg .u32 s; shl.b32 s, %1, 5; add.u32 %0, s, %2; }"))
BANKCHECK_FORM(lop3_xor_and, ASM1("lop3.b32 %0, %1, %2, %3, 0x6a;"))
BANKCHECK_FORM(lop3_or_not, ASM1("lop3.b32 %0, %1, %2, %3, 0xf3;"))
BANKCHECK_FORM(shf_l_u32, ASM1("shl.b32 %0, %1, %2;"))
BANKCHECK_FORM(shf_r_u32, ASM1("shr.u32 %0, %1, %2;"))
BANKCHECK_FORM(shf_r_s32, ASM1("shr.s32 %0, %1, %2;"))
BANKCHECK_FORM(shf_l_wrap, ASM1("shf.l.wrap.b32 %0, %1, %3, %2;"))
BANKCHECK_FORM(shf_r_clamp, ASM1("shf.r.clamp.b32 %0, %1, %3, %2;"))
BANKCHECK_FORM(shf_l_u64, asm("{ .reg .u64 x; mov.b64 x, {%2, %3}; shl.b64 x, x, %4; mov.b64 {%0, %1}, x; }"
                              : "=r"(r0), "=r"(r1)
                              : "r"(a), "r"(c), "r"(b)))
BANKCHECK_FORM(shf_r_s64, asm("{ .reg .s64 x; mov.b64 x, {%2, %3}; shr.s64 x, x, %4; mov.b64 {%0, %1}, x; }"
                              : "=r"(r0), "=r"(r1)
                              : "r"(a), "r"(c), "r"(b)))
BANKCHECK_FORM(isetp_lt_s32, ASMP("setp.lt.s32 p, %1, %2"))
BANKCHECK_FORM(isetp_ge_u32, ASMP("setp.ge.u32 p, %1, %2"))
BANKCHECK_FORM(isetp_ne, ASMP("setp.ne.s32 p, %1, %2"))
BANKCHECK_FORM(
    isetp_lt_s64,
    ASMP("{ .reg .s64 x, y; mov.b64 x, {%1, %3}; mov.b64 y, {%2, %1}; setp.lt.s64 p, x, y; } mov.pred p, p"))
BANKCHECK_FORM(
    isetp_ge_u64,
    ASMP("{ .reg .u64 x, y; mov.b64 x, {%1, %3}; mov.b64 y, {%2, %1}; setp.ge.u64 p, x, y; } mov.pred p, p"))
BANKCHECK_FORM(
    isetp_gt_s64,
    ASMP("{ .reg .s64 x, y; mov.b64 x, {%1, %3}; mov.b64 y, {%2, %1}; setp.gt.s64 p, x, y; } mov.pred p, p"))
BANKCHECK_FORM(
    isetp_le_u64,
    ASMP("{ .reg .u64 x, y; mov.b64 x, {%1, %3}; mov.b64 y, {%2, %1}; setp.le.u64 p, x, y; } mov.pred p, p"))
BANKCHECK_FORM(
    isetp_eq_u64,
    ASMP("{ .reg .u64 x, y; mov.b64 x, {%1, %3}; mov.b64 y, {%2, %1}; setp.eq.u64 p, x, y; } mov.pred p, p"))
BANKCHECK_FORM(imnmx_s32, ASM1("min.s32 %0, %1, %2;"))
BANKCHECK_FORM(imnmx_u32, ASM1("max.u32 %0, %1, %2;"))
BANKCHECK_FORM(popc, ASM1("popc.b32 %0, %1;"))
BANKCHECK_FORM(flo_u32, ASM1("bfind.u32 %0, %1;"))
BANKCHECK_FORM(flo_s32, ASM1("bfind.s32 %0, %1;"))
BANKCHECK_FORM(flo_sh, ASM1("bfind.shiftamt.u32 %0, %1;"))
BANKCHECK_FORM(brev, ASM1("brev.b32 %0, %1;"))
BANKCHECK_FORM(prmt, ASM1("prmt.b32 %0, %1, %2, %3;"))
BANKCHECK_FORM(iabs, ASM1("abs.s32 %0, %1;"))
BANKCHECK_FORM(iadd3_immediate, ASM1("add.u32 %0, %1, 0x12345;"))
BANKCHECK_FORM(udiv, r0 = a / b; r1 = a % b)

// Conversions (semantics_float.cc).
BANKCHECK_FORM(i2f_s32, ASM1("cvt.rn.f32.s32 %0, %1;"))
BANKCHECK_FORM(i2f_u32, ASM1("cvt.rn.f32.u32 %0, %1;"))
BANKCHECK_FORM(i2f_s32_rz, ASM1("cvt.rz.f32.s32 %0, %1;"))
BANKCHECK_FORM(i2f_u32_rm, ASM1("cvt.rm.f32.u32 %0, %1;"))
BANKCHECK_FORM(f2i_s32_trunc, ASM1("cvt.rzi.s32.f32 %0, %1;"))
BANKCHECK_FORM(f2i_s32_rn, ASM1("cvt.rni.s32.f32 %0, %1;"))
BANKCHECK_FORM(f2i_u32_floor, ASM1("cvt.rmi.u32.f32 %0, %1;"))
BANKCHECK_FORM(f2i_s32_ceil_ftz, ASM1("cvt.rpi.ftz.s32.f32 %0, %1;"))

BANKCHECK_FORM(i2f_s64, ASM1("{ .reg .s64 x; mov.b64 x, {%1, %2}; cvt.rn.f32.s64 %0, x; }"))
BANKCHECK_FORM(f2i_s64_trunc, asm("{ .reg .s64 x; cvt.rzi.s64.f32 x, %2; mov.b64 {%0, %1}, x; }"
                                  : "=r"(r0), "=r"(r1)
                                  : "r"(a)))

// Float atomics to global memory (output_memory.cc): c stored to the four words, then a, b added.
#define FLOAT_ATOMIC(body)                                             \
  {                                                                    \
    float* word = reinterpret_cast<float*>(out + 4 * t);               \
    const float fa = __uint_as_float(a), fb = __uint_as_float(b);      \
    out[4 * t] = out[4 * t + 1] = out[4 * t + 2] = out[4 * t + 3] = c; \
    body;                                                              \
    return;                                                            \
  }
BANKCHECK_FORM(redg_add_f32, FLOAT_ATOMIC(atomicAdd(word, fa)))
BANKCHECK_FORM(redg_add_f32x2, FLOAT_ATOMIC(atomicAdd(reinterpret_cast<float2*>(word), make_float2(fa, fb))))
BANKCHECK_FORM(redg_add_f32x4,
               FLOAT_ATOMIC(atomicAdd(reinterpret_cast<float4*>(word), make_float4(fa, fb, fb, fa))))
BANKCHECK_FORM(redg_add_u32, {
  out[4 * t] = c;
  atomicAdd(out + 4 * t, a);
  return;
})
BANKCHECK_FORM(atomg_add_u32, {
  out[4 * t] = c;
  out[4 * t + 1] = atomicAdd(out + 4 * t, a);
  return;
})

namespace bankcheck::conformance {
namespace {

using Kernel = void (*)(const uint32_t*, uint32_t*);
struct Entry {
  Form form;
  Kernel kernel;
};
#define F(name, opcode, inputs, outputs) \
  { {"form_" #name, opcode, Inputs::inputs, outputs}, form_##name }
const Entry kEntries[] = {
    F(fadd, "FADD", kFloat, 1),
    F(fadd_ftz, "FADD.FTZ", kFloat, 1),
    F(fadd_rz, "FADD.RZ", kFloat, 1),
    F(fadd_sat, "FADD.SAT", kFloat, 1),
    F(fmul, "FMUL", kFloat, 1),
    F(fmul_ftz, "FMUL.FTZ", kFloat, 1),
    F(ffma, "FFMA", kFloat, 1),
    F(ffma_ftz, "FFMA.FTZ", kFloat, 1),
    F(fmnmx_min, "FMNMX", kFloat, 1),
    F(fmnmx_max, "FMNMX", kFloat, 1),
    F(fmnmx_min_ftz, "FMNMX.FTZ", kFloat, 1),
    F(fmnmx_max_nan, "FMNMX.NAN", kFloat, 1),
    F(fsetp_lt, "FSETP.GEU.AND", kFloat, 1),
    F(fsetp_ge, "FSETP.GE.AND", kFloat, 1),
    F(fsetp_eq, "FSETP.NEU.AND", kFloat, 1),
    F(fsetp_neu, "FSETP.NEU.AND", kFloat, 1),
    F(fsetp_gtu, "FSETP.GTU.AND", kFloat, 1),
    F(fsetp_nan, "FSETP.NAN.AND", kFloat, 1),
    F(fsetp_num, "FSETP.NAN.AND", kFloat, 1),
    F(fsetp_lt_ftz, "FSETP.GEU.FTZ.AND", kFloat, 1),
    F(shfl_idx, "SHFL.IDX", kLane, 2),
    F(shfl_idx_segment, "SHFL.IDX", kLane, 2),
    F(shfl_up, "SHFL.UP", kLane, 2),
    F(shfl_down, "SHFL.DOWN", kLane, 2),
    F(shfl_bfly, "SHFL.BFLY", kLane, 2),
    F(hfma2_low, "HFMA2.MMA", kNone, 4),
    F(hfma2_high, "HFMA2.MMA", kNone, 4),
    F(iadd3, "IADD3", kInt, 1),
    F(iadd3_carry, "IADD3.X", kInt, 2),
    F(imad, "IMAD", kInt, 1),
    F(imad_hi_u32, "IMAD.HI.U32", kInt, 1),
    F(imad_hi_s32, "IMAD.HI", kInt, 1),
    F(imad_wide_u32, "IMAD.WIDE.U32", kInt, 2),
    F(imad_wide_s32, "IMAD.WIDE", kInt, 2),
    F(lea, "LEA", kInt, 1),
    F(lop3_xor_and, "LOP3.LUT", kInt, 1),
    F(lop3_or_not, "LOP3.LUT", kInt, 1),
    F(shf_l_u32, "SHF.L.U32", kShift, 1),
    F(shf_r_u32, "SHF.R.U32.HI", kShift, 1),
    F(shf_r_s32, "SHF.R.S32.HI", kShift, 1),
    F(shf_l_wrap, "SHF.L.W.U32.HI", kShift, 1),
    F(shf_r_clamp, "SHF.R.U32", kShift, 1),
    F(shf_l_u64, "SHF.L.U64.HI", kShift, 2),
    F(shf_r_s64, "SHF.R.S64", kShift, 2),
    F(isetp_lt_s32, "ISETP.GE.AND", kInt, 1),
    F(isetp_ge_u32, "ISETP.GE.U32.AND", kInt, 1),
    F(isetp_ne, "ISETP.NE.AND", kInt, 1),
    F(isetp_lt_s64, "ISETP.GE.AND.EX", kInt, 1),
    F(isetp_ge_u64, "ISETP.GE.U32.AND.EX", kInt, 1),
    F(isetp_gt_s64, "ISETP.GT.AND.EX", kInt, 1),
    F(isetp_le_u64, "ISETP.GT.U32.AND.EX", kInt, 1),
    F(isetp_eq_u64, "ISETP.NE.U32.AND.EX", kInt, 1),
    F(imnmx_s32, "VIMNMX", kInt, 1),
    F(imnmx_u32, "VIMNMX.U32", kInt, 1),
    F(popc, "POPC", kInt, 1),
    F(flo_u32, "FLO.U32", kInt, 1),
    F(flo_s32, "FLO", kInt, 1),
    F(flo_sh, "FLO.U32.SH", kInt, 1),
    F(brev, "BREV", kInt, 1),
    F(prmt, "PRMT", kInt, 1),
    F(iabs, "IABS", kInt, 1),
    F(iadd3_immediate, "IADD3", kInt, 1),
    F(udiv, "MUFU.RCP", kDivisor, 2),
    F(i2f_s32, "I2FP.F32.S32", kInt, 1),
    F(i2f_u32, "I2FP.F32.U32", kInt, 1),
    F(i2f_s32_rz, "I2FP.F32.S32.RZ", kInt, 1),
    F(i2f_u32_rm, "I2F.U32.RM", kInt, 1),
    F(f2i_s32_trunc, "F2I.TRUNC.NTZ", kFloat, 1),
    F(f2i_s32_rn, "F2I.NTZ", kFloat, 1),
    F(f2i_u32_floor, "F2I.U32.FLOOR.NTZ", kFloat, 1),
    F(f2i_s32_ceil_ftz, "F2I.FTZ.CEIL.NTZ", kFloat, 1),
    F(i2f_s64, "I2F.S64", kInt, 1),
    F(f2i_s64_trunc, "F2I.S64.TRUNC", kFloat, 2),
    F(redg_add_f32, "REDG.E.ADD.F32.FTZ.RN.STRONG.GPU", kFloat, 4),
    F(redg_add_f32x2, "REDG.E.ADD.F32x2.FTZ.RN.STRONG.GPU", kFloat, 4),
    F(redg_add_f32x4, "REDG.E.ADD.F32x4.FTZ.RN.STRONG.GPU", kFloat, 4),
    F(redg_add_u32, "REDG.E.ADD.STRONG.GPU", kInt, 4),
    F(atomg_add_u32, "ATOMG.E.ADD.STRONG.GPU", kInt, 4),
};
#undef F
constexpr size_t kCount = sizeof kEntries / sizeof kEntries[0];
Form kFormsTable[kCount];

}  // namespace

const Form* Forms(size_t* count) {
  for (size_t i = 0; i < kCount; ++i) kFormsTable[i] = kEntries[i].form;
  *count = kCount;
  return kFormsTable;
}

int LaunchForm(size_t index, const uint32_t* in, uint32_t* out, uint32_t threads) {
  kEntries[index].kernel<<<1, threads>>>(in, out);
  return static_cast<int>(cudaGetLastError());
}

const void* FormStub(size_t index) { return reinterpret_cast<const void*>(kEntries[index].kernel); }

}  // namespace bankcheck::conformance
