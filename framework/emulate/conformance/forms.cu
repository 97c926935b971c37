// The forms' kernels (forms.h). Each computes through inline PTX chosen so that ptxas emits the SASS
// form the table names; the replay test checks that the kernel's SASS has it.

#include "emulate/conformance/forms_kernel.h"

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

// Integer forms nvcc writes for C++ (the kernel suite's): each body is the C++ or PTX that makes
// ptxas emit the form its row claims, among others the table checks in their own rows.
#define ASM2(text) asm(text : "=r"(r0), "=r"(r1) : "r"(a), "r"(b), "r"(c))
// Three predicates combined (ISETP .XOR and .AND with a predicate input, PLOP3.LUT).
#define PREDICATES                                                                                 \
  ASMP(                                                                                            \
      "{ .reg .pred q, s, u, v; setp.lt.s32 q, %1, %2; setp.lt.u32 s, %2, %3; setp.eq.u32 u, %1, " \
      "%3; setp.ne.s32 v, %3, 7; xor.pred q, q, s; and.pred u, u, v; or.pred p, q, u; } mov.pred p, p")
BANKCHECK_FORM(plop3, PREDICATES)
BANKCHECK_FORM(isetp_eq_u32_and, PREDICATES)
BANKCHECK_FORM(isetp_lt_xor, PREDICATES)
// A loop of a trip count in 0..7: VIADD, IMAD.MOV.U32, ISETP .OR forms, PLOP3.LUT.
#define LOOP                                               \
  {                                                        \
    uint32_t s = a;                                        \
    for (uint32_t i = 0; i < (c & 7u); ++i) s = s * b + i; \
    r0 = s;                                                \
  }
BANKCHECK_FORM(viadd, LOOP)
BANKCHECK_FORM(imad_u32, LOOP)
BANKCHECK_FORM(isetp_le_u32_or, LOOP)
BANKCHECK_FORM(isetp_lt_u32_or, LOOP)
BANKCHECK_FORM(isetp_gt_s32, ASMP("setp.gt.s32 p, %1, %2"))
BANKCHECK_FORM(isetp_gt_u32, ASMP("setp.gt.u32 p, %1, %2"))
BANKCHECK_FORM(isetp_ne_u32, ASMP("setp.eq.u32 p, %1, %2"))
BANKCHECK_FORM(
    isetp_ne_s64,
    ASMP("{ .reg .s64 x, y; mov.b64 x, {%1, %3}; mov.b64 y, {%2, %3}; setp.ne.s64 p, x, y; } mov.pred p, p"))
#define AND_NE(test) \
  ASMP("{ .reg .pred q, s; " test " q, %1, %2; setp.ne.u32 s, %3, %2; and.pred p, q, s; } mov.pred p, p")
BANKCHECK_FORM(isetp_lt_and, AND_NE("setp.lt.s32"))
BANKCHECK_FORM(isetp_lt_u32_and, AND_NE("setp.lt.u32"))
BANKCHECK_FORM(isetp_le_u32_and, AND_NE("setp.le.u32"))
// A bounds check (a < b and c < b, else return): ISETP.GE.OR.
BANKCHECK_FORM(isetp_ge_or, {
  if (static_cast<int>(a) >= static_cast<int>(b) || static_cast<int>(c) >= static_cast<int>(b)) return;
  r0 = a ^ c;
})
BANKCHECK_FORM(shf_r_u64,
               ASM2("{ .reg .u64 x; mov.b64 x, {%2, %4}; shr.b64 x, x, %3; mov.b64 {%0, %1}, x; }"))
BANKCHECK_FORM(sel, {
  r0 = (static_cast<int>(a) <= static_cast<int>(b)) ? c : a;
  r1 = (a == b) ? c : b;
})
// 64-bit sums of 32-bit words: IADD3 carries into IMAD.X, LEA.HI with a carry-out.
BANKCHECK_FORM(imad_x, {
  uint64_t x = uint64_t{b} << 32 | a;
  uint64_t y = uint64_t{a} << 32 | c;
  uint64_t z = uint64_t{c} << 32 | b;
  x += c;
  y += b;
  z += a;
  const uint64_t w = (x ^ y) + (c >> 3);
  r0 = static_cast<uint32_t>(x);
  r1 = static_cast<uint32_t>(y >> 32);
  r2 = static_cast<uint32_t>(z >> 32);
  r3 = static_cast<uint32_t>(w >> 32);
})
BANKCHECK_FORM(lea_hi, {
  r0 = static_cast<uint32_t>(static_cast<int>(a) / 8);
  r1 = static_cast<uint32_t>(static_cast<int>(a) % 16);
})
BANKCHECK_FORM(lea_hi_x, ASM2("{ .reg .u64 x, y; mov.b64 x, {%2, %3}; cvt.u64.u32 y, %4; shl.b64 y, y, 3; "
                              "add.u64 x, x, y; mov.b64 {%0, %1}, x; }"))
// Loads at addresses a signed index moves (in[3t] to in[3t+2]): LEA.HI.X.SX32 among their sums.
BANKCHECK_FORM(lea_hi_x_sx32, {
  r0 = __ldg(in + static_cast<int>(3 * t + 1) + (static_cast<int>(c % 3u) - 1));
  r1 = __ldg(in + 3 * t + 1 + static_cast<int>((a & 1u) - 1u + (b & 1u)));
})
#define VOTES                            \
  r0 = __all_sync(0xffffffffu, b < 38u); \
  r1 = __any_sync(0xffffffffu, b > 39u); \
  r2 = __ballot_sync(0xffffffffu, b < 20u)
BANKCHECK_FORM(vote_all, VOTES)
BANKCHECK_FORM(vote_any, VOTES)
BANKCHECK_FORM(viaddmnmx, ASM1("{ .reg .s32 s; add.s32 s, %1, %2; min.s32 %0, s, %3; }"))
BANKCHECK_FORM(viaddmnmx_u32, ASM1("{ .reg .u32 s; add.u32 s, %1, %2; max.u32 %0, s, %3; }"))
BANKCHECK_FORM(bmsk, ASM1("bmsk.clamp.b32 %0, %1, %2;"))
BANKCHECK_FORM(bmsk_wrap, ASM1("bmsk.wrap.b32 %0, %1, %2;"))

// A loop to the launch's n (a kernel parameter, in a register) on a uniform counter: ISETP.LE.AND.
extern "C" __global__ void form_isetp_le(const uint32_t* __restrict__ in, uint32_t* __restrict__ out, int n) {
  const uint32_t t = threadIdx.x;
  const uint32_t a = __ldg(in + 3 * t), b = __ldg(in + 3 * t + 1), c = __ldg(in + 3 * t + 2);
  uint32_t r0 = 0, r1 = 0;
#pragma unroll 1
  for (int k = -64; k < n; k += 32) {
    if (static_cast<int>(a) <= k) r0 += b;
    if (c == static_cast<uint32_t>(k)) r1 ^= b;
  }
  out[4 * t] = r0;
  out[4 * t + 1] = r1;
  out[4 * t + 2] = 0;
  out[4 * t + 3] = 0;
}

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

// -0 against +0 in both orders (Inputs::kZeros).
BANKCHECK_FORM(fmnmx_min_zeros, ASM1("min.f32 %0, %1, %2;"))
BANKCHECK_FORM(fmnmx_max_zeros, ASM1("max.f32 %0, %1, %2;"))
BANKCHECK_FORM(fmnmx_min_ftz_zeros, ASM1("min.ftz.f32 %0, %1, %2;"))
BANKCHECK_FORM(fmnmx_max_nan_zeros, ASM1("max.NaN.f32 %0, %1, %2;"))
BANKCHECK_FORM(i2f_u32_rp, ASM1("cvt.rp.f32.u32 %0, %1;"))
BANKCHECK_FORM(f2i_u32_trunc_ftz, ASM1("cvt.rzi.ftz.u32.f32 %0, %1;"))

// Packs and other precisions (semantics_float.cc): two floats into bf16x2 and f16x2, f32 <-> f64.
BANKCHECK_FORM(f2fp_bf16, ASM1("cvt.rn.bf16x2.f32 %0, %1, %2;"))
BANKCHECK_FORM(f2fp_f16, ASM1("cvt.rn.f16x2.f32 %0, %1, %2;"))
BANKCHECK_FORM(f2f_f64_f32,
               asm("{ .reg .f64 d; .reg .f32 f; mov.b32 f, %2; cvt.f64.f32 d, f; mov.b64 {%0, %1}, d; }"
                   : "=r"(r0), "=r"(r1)
                   : "r"(a)))
// Doubles (Inputs::kDouble): x = {lo c, hi a}, y = {lo c, hi b}, z = {lo a, hi c}, from the operands
// that hold a, b and c: %1 to %3 where one word is written (ASM1, ASMDP), %2 to %4 where two are (ASMD).
#define DOUBLES_OF(a, b, c) \
  "mov.b64 x, {" c ", " a "}; mov.b64 y, {" c ", " b "}; mov.b64 z, {" a ", " c "}; "
#define DOUBLES DOUBLES_OF("%1", "%2", "%3")
#define ASMD(text)                                                                         \
  asm("{ .reg .f64 x, y, z; " DOUBLES_OF("%2", "%3", "%4") text "; mov.b64 {%0, %1}, x; }" \
      : "=r"(r0), "=r"(r1)                                                                 \
      : "r"(a), "r"(b), "r"(c))
#define ASMDP(text) ASMP("{ .reg .f64 x, y, z; " DOUBLES text "; } mov.pred p, p")
BANKCHECK_FORM(f2f_f32_f64,
               ASM1("{ .reg .f64 x, y, z; .reg .f32 f; " DOUBLES "cvt.rn.f32.f64 f, x; mov.b32 %0, f; }"))
BANKCHECK_FORM(dadd, ASMD("add.rn.f64 x, x, y"))
BANKCHECK_FORM(dmul, ASMD("mul.rn.f64 x, x, y"))
BANKCHECK_FORM(dfma, ASMD("fma.rn.f64 x, x, y, z"))
BANKCHECK_FORM(dsetp_lt, ASMDP("setp.lt.f64 p, x, y"))
BANKCHECK_FORM(dsetp_gtu, ASMDP("setp.gtu.f64 p, x, y"))
// Half pairs (Inputs::kHalf): ptxas spreads them over HFMA2.MMA, HADD2, HMUL2 and HFMA2.
#define HALVES(op, x, y, ...) asm(op " %0, %1, %2" __VA_ARGS__ ";" : "=r"(x) : "r"(y), "r"(b), "r"(c))
BANKCHECK_FORM(hadd2, {
  HALVES("add.rn.f16x2", r0, a);
  HALVES("add.rn.f16x2", r1, c);
  HALVES("add.rn.f16x2", r2, b);
})
BANKCHECK_FORM(hmul2, {
  HALVES("mul.rn.f16x2", r0, a);
  HALVES("mul.rn.f16x2", r1, c);
  HALVES("mul.rn.f16x2", r2, b);
})
BANKCHECK_FORM(hfma2, {
  HALVES("fma.rn.f16x2", r0, a, ", %3");
  HALVES("fma.rn.f16x2", r1, c, ", %3");
  HALVES("fma.rn.f16x2", r2, b, ", %3");
  HALVES("fma.rn.f16x2", r3, a, ", %1");
})
BANKCHECK_FORM(hfma2_mma, ASM1("fma.rn.f16x2 %0, %1, %2, %3;"))
BANKCHECK_FORM(hfma2_bf16, ASM1("fma.rn.bf16x2 %0, %1, %2, %3;"))
BANKCHECK_FORM(hadd2_f32,
               asm("{ .reg .b16 h, g; .reg .f32 f; mov.b32 {h, g}, %1; cvt.f32.f16 f, g; mov.b32 %0, f; }"
                   : "=r"(r0)
                   : "r"(a)))
// The full-precision division: FCHK picks the slow path; both paths give the correctly rounded a / b.
BANKCHECK_FORM(fchk, ASM1("div.rn.f32 %0, %1, %2;"))

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

// Signed index arithmetic (CUB's padded shared indices, i + (i >> 5)): LEA.HI.SX32 d, a, b, s is
// b + (a >> (32 - s)), a signed; four shift counts.
BANKCHECK_FORM(lea_hi_sx32, {
  r0 = b + static_cast<uint32_t>(static_cast<int>(a) >> 5);
  r1 = c + static_cast<uint32_t>(static_cast<int>(a) >> 1);
  r2 = a + static_cast<uint32_t>(static_cast<int>(b) >> 31);
  r3 = c + static_cast<uint32_t>(static_cast<int>(b) >> 16);
})
// Comparisons combined with another's predicate by .OR (and .AND), as ptxas writes or.pred and
// and.pred of two setp; the second kernel of ISETP.LT.OR has an immediate and the predicate negated.
#define COMBINED(test, combine)                                                 \
  ASMP("{ .reg .pred q, s; " test " q, %1, %2; setp.ne.u32 s, %3, %2; " combine \
       " p, q, s; } mov.pred "                                                  \
       "p, p")
BANKCHECK_FORM(isetp_lt_or, COMBINED("setp.lt.s32", "or.pred"))
BANKCHECK_FORM(isetp_lt_or_not,
               ASMP("{ .reg .pred q, s; setp.lt.s32 q, %1, 8; setp.ne.u32 s, %3, %2; or.pred p, q, !s; } "
                    "mov.pred p, p"))
BANKCHECK_FORM(isetp_le_or, COMBINED("setp.le.s32", "or.pred"))
BANKCHECK_FORM(isetp_gt_or, COMBINED("setp.gt.s32", "or.pred"))
BANKCHECK_FORM(isetp_ne_or, COMBINED("setp.ne.s32", "or.pred"))
BANKCHECK_FORM(isetp_eq_u32_or, COMBINED("setp.eq.u32", "or.pred"))
BANKCHECK_FORM(isetp_gt_u32_or, COMBINED("setp.gt.u32", "or.pred"))
BANKCHECK_FORM(isetp_ge_u32_or, COMBINED("setp.ge.u32", "or.pred"))
BANKCHECK_FORM(isetp_eq_and, COMBINED("setp.eq.s32", "and.pred"))
// A float chosen by a float comparison (CUB's scans: FSEL d, a, RZ, !p and FSEL d, a, b, p).
BANKCHECK_FORM(fsel, {
  const float x = __uint_as_float(a), y = __uint_as_float(b), z = __uint_as_float(c);
  r0 = __float_as_uint(x < y ? z : 0.0f);
  r1 = __float_as_uint(x >= z ? y : x);
})

// Warp reductions (Inputs::kWarpInt): __reduce_*_sync of a over the warp, and of c over the lanes
// whose b is below 20 (a partial member mask, the lanes that reach it).
#define REDUCE(reduce, T)                                                        \
  {                                                                              \
    r0 = static_cast<uint32_t>(reduce(0xffffffffu, static_cast<T>(a)));          \
    const uint32_t members = __ballot_sync(0xffffffffu, b < 20u);                \
    if (b < 20u) r1 = static_cast<uint32_t>(reduce(members, static_cast<T>(c))); \
  }
BANKCHECK_FORM(redux_sum_s32, REDUCE(__reduce_add_sync, int))
BANKCHECK_FORM(redux_sum_u32, REDUCE(__reduce_add_sync, unsigned))
BANKCHECK_FORM(redux_min_s32, REDUCE(__reduce_min_sync, int))
BANKCHECK_FORM(redux_min_u32, REDUCE(__reduce_min_sync, unsigned))
BANKCHECK_FORM(redux_max_s32, REDUCE(__reduce_max_sync, int))
BANKCHECK_FORM(redux_max_u32, REDUCE(__reduce_max_sync, unsigned))
BANKCHECK_FORM(redux_and, REDUCE(__reduce_and_sync, unsigned))
BANKCHECK_FORM(redux_or, REDUCE(__reduce_or_sync, unsigned))
BANKCHECK_FORM(redux_xor, REDUCE(__reduce_xor_sync, unsigned))
// CUB's logical warps of 16 lanes: each half reduces with its own member mask (WARPSYNC.EXCLUSIVE
// of a mask per lane, then REDUX). The emulator leaves it unknown (each half's value is its own).
BANKCHECK_FORM(redux_max_s32_halves, {
  const uint32_t half = 0xffffu << (t & 16u);
  r0 = static_cast<uint32_t>(__reduce_max_sync(half, static_cast<int>(a)));
})
// The lane masks (S2R of SR_LTMASK ... SR_GEMASK, SR_EQMASK) and the lane: known before the launch.
BANKCHECK_FORM(lane_masks, {
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(r0));
  asm("mov.u32 %0, %%lanemask_le;" : "=r"(r1));
  asm("mov.u32 %0, %%lanemask_gt;" : "=r"(r2));
  asm("mov.u32 %0, %%lanemask_ge;" : "=r"(r3));
})
BANKCHECK_FORM(lane_mask_eq, {
  asm("mov.u32 %0, %%lanemask_eq;" : "=r"(r0));
  asm("mov.u32 %0, %%laneid;" : "=r"(r1));
})

// A predicate spilled to a register (P2R d, PR, RZ, mask, read back by ISETP.NE d, RZ): nine
// predicates live at once, one more than P0 to P6 hold, so ptxas spills some (FlashInfer's packbits
// and layernorm, CUB's block sort). q<i> is bit i of a; each step adds b or xors c under q<i>.
#define BIT(i, m) "and.b32 s, %1, " #m "; setp.ne.u32 q" #i ", s, 0; "
#define STEP(i) "@q" #i " add.u32 %0, %0, %2; @!q" #i " xor.b32 %0, %0, %3; shf.l.wrap.b32 %0, %0, %0, 3; "
#define NINE_BITS \
  BIT(0, 1) BIT(1, 2) BIT(2, 4) BIT(3, 8) BIT(4, 16) BIT(5, 32) BIT(6, 64) BIT(7, 128) BIT(8, 256)
#define NINE_STEPS STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) STEP(8)
BANKCHECK_FORM(p2r, asm("{ .reg .pred q<9>; .reg .u32 s; mov.u32 %0, %3; " NINE_BITS NINE_STEPS NINE_STEPS "}"
                        : "+r"(r0)
                        : "r"(a), "r"(b), "r"(c)))
// __match_any_sync (Inputs::kWarpInt; CUB's warp exchange and scans, CuPy's channelizer): over the
// warp, of b (0 to 40: some lanes equal) and of b & 3; over the lanes whose b is below 20 (WARPSYNC of
// that mask, then MATCH.ANY), of a & 3. The 64-bit form (.U64) the same, on pairs of words.
BANKCHECK_FORM(match_any, {
  r0 = __match_any_sync(0xffffffffu, b);
  r1 = __match_any_sync(0xffffffffu, b & 3u);
  const uint32_t members = __ballot_sync(0xffffffffu, b < 20u);
  if (b < 20u) r2 = __match_any_sync(members, a & 3u);
})
BANKCHECK_FORM(match_any_u64, {
  r0 = __match_any_sync(0xffffffffu, static_cast<unsigned long long>(b & 3u) << 32 | (c & 1u));
  r1 = __match_any_sync(0xffffffffu, static_cast<unsigned long long>(a) << 32 | b);
  const uint32_t members = __ballot_sync(0xffffffffu, b < 20u);
  if (b < 20u) r2 = __match_any_sync(members, static_cast<unsigned long long>(a & 1u) << 32 | (b & 3u));
})
// expf's forms (the kernel suite's row_softmax): the range reduction's saturated and rounded-down
// FFMAs and the approximate exponential, whose GPU values the vectors record.
BANKCHECK_FORM(mufu_ex2, ASM1("ex2.approx.ftz.f32 %0, %1;"))
BANKCHECK_FORM(ffma_sat, ASM1("fma.rn.sat.f32 %0, %1, %2, %3;"))
BANKCHECK_FORM(ffma_rm, ASM1("fma.rm.f32 %0, %1, %2, %3;"))

// The forms the corpus's output checks wait on (issue 52): three-way and clamped-at-0 integer
// min/max, dp2a, saturating narrowings (OpenCV's saturate_cast), rsqrtf and tanhf's approximations,
// a rounded-up int to float, a floor, a float compare and half to float. The narrowings also take
// b's top 10 bits (-512 to 511), the float roundings its top 12 as quarters (`small`, -512 to
// 511.75): every saturation edge and halfway case.
BANKCHECK_FORM(vimnmx3, {
  r0 = static_cast<uint32_t>(max(max(static_cast<int>(a), static_cast<int>(b)), static_cast<int>(c)));
  r1 = static_cast<uint32_t>(min(min(static_cast<int>(a), static_cast<int>(b)), static_cast<int>(c)));
})
BANKCHECK_FORM(vimnmx3_u32, r0 = max(max(a, b), c); r1 = min(min(a, b), c))
BANKCHECK_FORM(i2f_s32_rp, ASM1("cvt.rp.f32.s32 %0, %1;"))
#define ON_THREE(op) \
  asm(op " %0, %3; " op " %1, %4; " op " %2, %5;" : "=r"(r0), "=r"(r1), "=r"(r2) : "r"(a), "r"(b), "r"(c))
BANKCHECK_FORM(mufu_rsq, ON_THREE("rsqrt.approx.ftz.f32"))
BANKCHECK_FORM(mufu_tanh, ON_THREE("tanh.approx.f32"))
BANKCHECK_FORM(fsetp_gt, ASMP("setp.gt.f32 p, %1, %2"))
BANKCHECK_FORM(
    hadd2_f32_halves,
    asm("{ .reg .b16 h, g; .reg .f32 f, e; mov.b32 {h, g}, %2; cvt.f32.f16 f, h; cvt.f32.f16 e, g; "
        "mov.b32 %0, f; mov.b32 %1, e; }"
        : "=r"(r0), "=r"(r1)
        : "r"(a)))
BANKCHECK_FORM(isetp_lt_and_ex,
               ASMP("{ .reg .pred q, s; .reg .s64 x, y; mov.b64 x, {%1, %3}; mov.b64 y, {%2, %1}; "
                    "setp.lt.s64 q, x, y; setp.ne.u32 s, %3, %2; and.pred p, q, s; } mov.pred p, p"))
BANKCHECK_FORM(viaddmnmx_relu, {
  r0 = static_cast<uint32_t>(
      __viaddmax_s32_relu(static_cast<int>(a), static_cast<int>(b), static_cast<int>(c)));
  r1 = static_cast<uint32_t>(
      __viaddmin_s32_relu(static_cast<int>(a), static_cast<int>(b), static_cast<int>(c)));
})
BANKCHECK_FORM(vimnmx_relu, {
  r0 = static_cast<uint32_t>(__vimax_s32_relu(static_cast<int>(a), static_cast<int>(b)));
  r1 = static_cast<uint32_t>(__vimin_s32_relu(static_cast<int>(a), static_cast<int>(b)));
})
BANKCHECK_FORM(idp_2a_lo_u16_u8, ASM1("dp2a.lo.u32.u32 %0, %1, %2, %3;"))
#define NARROWED(op) \
  asm(op " %0, %2; " op " %1, %3;" : "=r"(r0), "=r"(r1) : "r"(a), "r"(static_cast<int>(b) >> 22))
BANKCHECK_FORM(i2i_u8_s32_sat, NARROWED("cvt.sat.u8.s32"))
BANKCHECK_FORM(i2i_s8_s32_sat, NARROWED("cvt.sat.s8.s32"))
#define ROUNDED(op)                                                          \
  const float small = static_cast<float>(static_cast<int>(b) >> 20) * 0.25f; \
  asm(op " %0, %2; " op " %1, %3;" : "=r"(r0), "=r"(r1) : "r"(a), "f"(small))
BANKCHECK_FORM(f2i_s32_floor, ROUNDED("cvt.rmi.s32.f32"))
BANKCHECK_FORM(f2ip_u8_f32, ROUNDED("cvt.rni.sat.u8.f32"))

// The comparisons of ptxas's sqrtf slow path (__cuda_sm20_sqrt_rn_f32_slowpath: |x| against +INF).
BANKCHECK_FORM(fsetp_gtu_ftz, ASMP("setp.gtu.ftz.f32 p, %1, %2"))
BANKCHECK_FORM(fsetp_neu_ftz, ASMP("setp.neu.ftz.f32 p, %1, %2"))

// Sign and zero extension from bit b (szext; Triton's index arithmetic with more than one warp emits
// SGXT.U32 with an immediate): b from 0 to 70 and random, clamped or wrapped.
BANKCHECK_FORM(sgxt_u32, ASM1("szext.clamp.u32 %0, %1, %2;"))
BANKCHECK_FORM(sgxt_u32_immediate, ASM1("szext.clamp.u32 %0, %1, 5;"))
BANKCHECK_FORM(sgxt_s32, ASM1("szext.clamp.s32 %0, %1, %2;"))
BANKCHECK_FORM(sgxt_wrap_s32, ASM1("szext.wrap.s32 %0, %1, %2;"))
BANKCHECK_FORM(sgxt_wrap_u32, ASM1("szext.wrap.u32 %0, %1, %2;"))
// The special function unit's reciprocal, square root and logarithm (the others above), whose
// exhaustive model benchmarks/mufu_exhaustive.cu measures: drawn over the whole range.
BANKCHECK_FORM(mufu_rcp, ON_THREE("rcp.approx.ftz.f32"))
BANKCHECK_FORM(mufu_sqrt, ON_THREE("sqrt.approx.ftz.f32"))
BANKCHECK_FORM(mufu_lg2, ON_THREE("lg2.approx.ftz.f32"))
