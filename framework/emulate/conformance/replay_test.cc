// The conformance replay (docs/emulate.md, "Checked against the GPU"): every form of vectors.txt runs
// through the stand-in runtime on the inputs the GPU ran, and what the emulator computes must be the
// GPU's outputs bit for bit. A form whose outputs the emulator does not compute is reported as not
// computed with its reason (honest: nothing is claimed); a computed word that differs fails.
#include <cuda_runtime_api.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/core/error.h"
#include "emulate/conformance/awaiting_vectors.h"
#include "emulate/conformance/forms.h"
#include "emulate/conformance/replay_support.h"
#include "emulate/conformance/vectors.h"
#include "emulate/internal/checked_forms.h"
#include "emulate/internal/sass.h"
#include "emulated_runtime/internal/launch_capture.h"

namespace bankcheck::conformance {
namespace {

// HFMA2.MMA R, -RZ, RZ, hi, lo: nvdisasm prints the high half first. A kernel that stores 7 (here
// made by HFMA2.MMA ..., 0, 4.17e-07, the half 0x0007 in the low half) reads back 7.
TEST(ConformanceTest, HalfConstantsAreReadHighHalfFirst) {
  BANKCHECK_NEED_SASS();
  const size_t low = FormIndex("form_hfma2_low"), high = FormIndex("form_hfma2_high");
  ASSERT_TRUE(HasForm("form_hfma2_low", "HFMA2.MMA"));
  ASSERT_TRUE(HasForm("form_hfma2_high", "HFMA2.MMA"));
  std::vector<uint32_t> in(kThreads * kInputs), out(kThreads * kOutputs);
  std::string why;
  ASSERT_TRUE(Replay(low, in, &out, &why)) << why;
  EXPECT_EQ(out[0], 7u) << "read back " << out[0];
  ASSERT_TRUE(Replay(high, in, &out, &why)) << why;
  EXPECT_EQ(out[0], 0x80010000u) << "read back " << Hex(out[0]);
}

// atomicAdd(float2) and atomicAdd(float4) (REDG.E.ADD.F32x2/F32x4) are float adds, not 32-bit integer
// ones: not computed (the GPU's rounding of them is not followed), and the read-back says why. With
// the integer add, {1.5, 2.5} onto {1, 1} read back {1.00195, 1}.
TEST(ConformanceTest, VectorFloatAtomicsAreNotComputed) {
  BANKCHECK_NEED_SASS();
  const uint32_t one = 0x3f800000u;
  for (const char* name : {"form_redg_add_f32x2", "form_redg_add_f32x4", "form_redg_add_f32"}) {
    std::vector<uint32_t> in(kThreads * kInputs), out(kThreads * kOutputs);
    for (uint32_t t = 0; t < kThreads; ++t) {
      in[t * kInputs] = 0x3fc00000u;      // 1.5
      in[t * kInputs + 1] = 0x40200000u;  // 2.5
      in[t * kInputs + 2] = one;
    }
    std::string why;
    EXPECT_FALSE(Replay(FormIndex(name), in, &out, &why))
        << name << " computed: {" << Hex(out[0]) << ", " << Hex(out[1]) << "}";
    EXPECT_THAT(why, ::testing::HasSubstr("REDG.E.ADD.F32")) << name;
    EXPECT_THAT(why, ::testing::HasSubstr("float")) << name;
  }
}

// The rule (internal/checked_forms.def): a form outside the table is not computed, and says so, even
// where a handler could compute it (I2I.S8.S32.SAT: the narrowing handler computes I2I.U8.S32.SAT);
// one in it is (FADD).
TEST(ConformanceTest, OnlyFormsOfTheTableAreComputed) {
  BANKCHECK_NEED_SASS();
  ASSERT_FALSE(emulate::internal::HasConformanceVectors("I2I.S8.S32.SAT"));
  ASSERT_TRUE(emulate::internal::HasConformanceVectors("FADD"));
  std::vector<uint32_t> in(kThreads * kInputs, 0x3f800000u), out(kThreads * kOutputs);
  std::string why;
  EXPECT_FALSE(Replay(FormIndex("form_i2i_s8_s32_sat"), in, &out, &why));
  EXPECT_THAT(why, ::testing::HasSubstr("form I2I.S8.S32.SAT ("));
  EXPECT_THAT(why, ::testing::HasSubstr("), not among the forms checked against the GPU"));
  ASSERT_TRUE(Replay(FormIndex("form_fadd"), in, &out, &why)) << why;
  EXPECT_EQ(out[0], 0x40000000u) << "1 + 1 read back " << Hex(out[0]);
}

// The warp reductions through nvcc's SASS for __reduce_*_sync (REDUX, and for the partial member
// mask a VOTE.ANY, a WARPSYNC and a branch around it): lane l of warp w holds a = (l - 16) * k_w
// (signed values around 0, sums that overflow) and c = l << 27 ^ w; the members of the second
// reduction are the lanes with b < 20, every third. Each lane reads the reduction of a over its
// warp, and a member that of c over the members (others 0), as redux.sync defines them.
TEST(ConformanceTest, WarpReductionsReduceOverTheirMembers) {
  BANKCHECK_NEED_SASS();
  std::vector<uint32_t> in(kThreads * kInputs);
  for (uint32_t t = 0; t < kThreads; ++t) {
    const uint32_t lane = t % 32, warp = t / 32;
    in[t * kInputs] = (lane - 16) * (0x0a000001u + warp * 0x11111111u);
    in[t * kInputs + 1] = lane % 3 == 0 ? 5 : 30;
    in[t * kInputs + 2] = lane << 27 ^ warp;
  }
  using Op = uint32_t (*)(uint32_t, uint32_t);
  const std::pair<const char*, Op> kReductions[] = {
      {"form_redux_sum_s32", [](uint32_t x, uint32_t y) { return x + y; }},
      {"form_redux_sum_u32", [](uint32_t x, uint32_t y) { return x + y; }},
      {"form_redux_min_s32",
       [](uint32_t x, uint32_t y) { return static_cast<int32_t>(x) < static_cast<int32_t>(y) ? x : y; }},
      {"form_redux_min_u32", [](uint32_t x, uint32_t y) { return x < y ? x : y; }},
      {"form_redux_max_s32",
       [](uint32_t x, uint32_t y) { return static_cast<int32_t>(x) > static_cast<int32_t>(y) ? x : y; }},
      {"form_redux_max_u32", [](uint32_t x, uint32_t y) { return x > y ? x : y; }},
      {"form_redux_and", [](uint32_t x, uint32_t y) { return x & y; }},
      {"form_redux_or", [](uint32_t x, uint32_t y) { return x | y; }},
      {"form_redux_xor", [](uint32_t x, uint32_t y) { return x ^ y; }},
  };
  for (const auto& [name, op] : kReductions) {
    std::vector<uint32_t> out(kThreads * kOutputs);
    std::string why;
    ASSERT_TRUE(Replay(FormIndex(name), in, &out, &why)) << name << ": " << why;
    for (uint32_t warp = 0; warp < kThreads / 32; ++warp) {
      uint32_t all = 0, members = 0;
      bool first_member = true;
      for (uint32_t lane = 0; lane < 32; ++lane) {
        const uint32_t t = warp * 32 + lane;
        all = lane == 0 ? in[t * kInputs] : op(all, in[t * kInputs]);
        if (in[t * kInputs + 1] >= 20u) continue;
        members = first_member ? in[t * kInputs + 2] : op(members, in[t * kInputs + 2]);
        first_member = false;
      }
      for (uint32_t lane = 0; lane < 32; ++lane) {
        const uint32_t t = warp * 32 + lane;
        EXPECT_EQ(out[t * kOutputs], all) << name << " thread " << t;
        EXPECT_EQ(out[t * kOutputs + 1], in[t * kInputs + 1] < 20u ? members : 0u) << name << " thread " << t;
      }
    }
  }
  // CUB's logical warps of 16 (WARPSYNC.EXCLUSIVE of each half's mask): each half reduces alone,
  // which is not followed, so not computed (the reason names the REDUX).
  std::vector<uint32_t> out(kThreads * kOutputs);
  std::string why;
  EXPECT_FALSE(Replay(FormIndex("form_redux_max_s32_halves"), in, &out, &why)) << Hex(out[0]);
  EXPECT_THAT(why, ::testing::HasSubstr("REDUX.MAX.S32"));
}

// The lanes l of thread t's warp (of those with `member`) whose key(l) equals key(t): MATCH.ANY's
// value as match.any.sync defines it.
template <typename Key, typename Member>
uint32_t Matching(uint32_t t, Key key, Member member) {
  uint32_t lanes = 0;
  for (uint32_t lane = 0; lane < 32; ++lane) {
    const uint32_t other = t / 32 * 32 + lane;
    if (member(other) && key(other) == key(t)) lanes |= 1u << lane;
  }
  return lanes;
}

// The forms of P2R and MATCH.ANY through nvcc's SASS, against what the PTX computes (on the host):
// form_p2r's chain of nine predicates, two of them spilled by P2R and read back; __match_any_sync
// over the warp and over the lanes with b < 20, of 32- and 64-bit keys that some lanes share. Computed once
// their forms are in checked_forms.def; before, not computed with the reason naming the form.
TEST(ConformanceTest, PredicateSpillsAndMatchesComputeWhatThePtxSays) {
  BANKCHECK_NEED_SASS();
  std::vector<uint32_t> in(kThreads * kInputs);
  for (uint32_t t = 0; t < kThreads; ++t) {
    in[t * kInputs] = t * 0x9e3779b9u;
    in[t * kInputs + 1] = (t % 32 * (t % 32) + t / 32) % 41;  // lanes l and 41 - l equal
    in[t * kInputs + 2] = t * 0x85ebca6bu ^ 0x5bd1e995u;
  }
  const auto a = [&](uint32_t t) { return in[t * kInputs]; };
  const auto b = [&](uint32_t t) { return in[t * kInputs + 1]; };
  const auto c = [&](uint32_t t) { return in[t * kInputs + 2]; };
  const auto all = [](uint32_t) { return true; };
  const auto below20 = [&](uint32_t t) { return b(t) < 20u; };
  using Wide = unsigned long long;
  const std::pair<const char*, const char*> kForms[] = {
      {"form_p2r", "P2R"}, {"form_match_any", "MATCH.ANY"}, {"form_match_any_u64", "MATCH.ANY.U64"}};
  for (const auto& [name, form] : kForms) {
    std::vector<uint32_t> out(kThreads * kOutputs);
    std::string why;
    if (!emulate::internal::HasConformanceVectors(form)) {
      EXPECT_FALSE(Replay(FormIndex(name), in, &out, &why)) << name << " computed outside the table";
      EXPECT_THAT(why, ::testing::HasSubstr(std::string("form ") + form + " (")) << name;
      continue;
    }
    ASSERT_TRUE(Replay(FormIndex(name), in, &out, &why)) << name << ": " << why;
    for (uint32_t t = 0; t < kThreads; ++t) {
      uint32_t expected[3] = {};
      if (std::string(name) == "form_p2r") {
        expected[0] = c(t);
        for (int round = 0; round < 2; ++round) {
          for (int bit = 0; bit < 9; ++bit) {
            expected[0] = (a(t) >> bit & 1u) ? expected[0] + b(t) : expected[0] ^ c(t);
            expected[0] = expected[0] << 3 | expected[0] >> 29;
          }
        }
      } else if (std::string(name) == "form_match_any") {
        expected[0] = Matching(t, b, all);
        expected[1] = Matching(
            t, [&](uint32_t u) { return b(u) & 3u; }, all);
        if (below20(t))
          expected[2] = Matching(
              t, [&](uint32_t u) { return a(u) & 3u; }, below20);
      } else {
        expected[0] = Matching(
            t, [&](uint32_t u) { return Wide{b(u) & 3u} << 32 | (c(u) & 1u); }, all);
        expected[1] = Matching(
            t, [&](uint32_t u) { return Wide{a(u)} << 32 | b(u); }, all);
        if (below20(t))
          expected[2] = Matching(
              t, [&](uint32_t u) { return Wide{a(u) & 1u} << 32 | (b(u) & 3u); }, below20);
      }
      for (uint32_t word = 0; word < 3; ++word)
        EXPECT_EQ(out[t * kOutputs + word], expected[word]) << name << " thread " << t << " word " << word;
    }
  }
}

// FRND's forms through nvcc's SASS, against the host's rounding of the same values (quarters and
// halves from -32 to 32: every tie, both signs; the doubles' high words of the same values, their low
// words 0). Computed once their forms are in checked_forms.def; before, not computed with the reason
// naming the form.
TEST(ConformanceTest, RoundingComputesWhatThePtxSays) {
  BANKCHECK_NEED_SASS();
  std::vector<uint32_t> in(kThreads * kInputs);
  const auto value = [](uint32_t t) { return static_cast<float>(t) * 0.25f - 32.0f; };
  const auto high = [](double x) {
    uint64_t bits = 0;
    std::memcpy(&bits, &x, 8);
    return static_cast<uint32_t>(bits >> 32);
  };
  for (uint32_t t = 0; t < kThreads; ++t) {
    const float a = value(t), b = -value(t) * 1.5f;
    std::memcpy(&in[t * kInputs], &a, 4);
    std::memcpy(&in[t * kInputs + 1], &b, 4);
    in[t * kInputs + 2] = 0;
  }
  using Round = double (*)(double);
  const std::pair<const char*, Round> kModes[] = {{"", [](double x) { return std::nearbyint(x); }},
                                                  {"_ceil", [](double x) { return std::ceil(x); }},
                                                  {"_floor", [](double x) { return std::floor(x); }},
                                                  {"_trunc", [](double x) { return std::trunc(x); }}};
  for (const char* kind : {"form_frnd", "form_frnd_ftz", "form_frnd_f64"}) {
    for (const auto& [mode, round] : kModes) {
      const std::string name = std::string(kind) + mode;
      const size_t index = FormIndex(name);
      size_t count = 0;
      const Form& form = Forms(&count)[index];
      const bool wide = form.outputs == 4;
      std::vector<uint32_t> wide_in = in;
      for (uint32_t t = 0; wide && t < kThreads; ++t) {
        wide_in[t * kInputs] = high(value(t));
        wide_in[t * kInputs + 1] = high(-value(t) * 1.5);
      }
      std::vector<uint32_t> out(kThreads * kOutputs);
      std::string why;
      if (!emulate::internal::HasConformanceVectors(form.opcode)) {
        EXPECT_FALSE(Replay(index, wide ? wide_in : in, &out, &why)) << name << " computed outside the table";
        EXPECT_THAT(why, ::testing::HasSubstr(std::string("form ") + form.opcode + " (")) << name;
        continue;
      }
      ASSERT_TRUE(Replay(index, wide ? wide_in : in, &out, &why)) << name << ": " << why;
      for (uint32_t t = 0; t < kThreads; ++t) {
        const double x = value(t), y = -value(t) * 1.5;
        if (wide) {
          EXPECT_EQ(out[t * kOutputs + 1], high(round(x))) << name << " thread " << t;
          EXPECT_EQ(out[t * kOutputs + 3], high(round(y))) << name << " thread " << t;
          EXPECT_EQ(out[t * kOutputs] | out[t * kOutputs + 2], 0u) << name << " thread " << t;
          continue;
        }
        const float rx = static_cast<float>(round(x)), ry = static_cast<float>(round(y)), rz = 0.0f;
        for (const auto& [word, expected] : {std::pair{0, rx}, std::pair{1, ry}, std::pair{2, rz}}) {
          uint32_t bits = 0;
          std::memcpy(&bits, &expected, 4);
          EXPECT_EQ(out[t * kOutputs + word], bits) << name << " thread " << t << " word " << word;
        }
      }
    }
  }
}

TEST(ConformanceTest, EveryFormReplaysTheGpusVectorsBitForBit) {
  BANKCHECK_NEED_SASS();
  std::string problem;
  RecordedVectors vectors;
  ASSERT_TRUE(ReadVectors(BANKCHECK_CONFORMANCE_VECTORS, &vectors, &problem)) << problem;
  size_t count = 0;
  const Form* forms = Forms(&count);
  std::map<std::string, size_t> index_of;
  for (size_t i = 0; i < count; ++i) index_of[forms[i].name] = i;
  std::printf("vectors recorded on %s (driver %s, runtime %s)\n", vectors.device.c_str(),
              vectors.driver.c_str(), vectors.runtime.c_str());
  size_t computed_forms = 0, computed_vectors = 0, differ = 0, unknown_vectors = 0;
  std::vector<std::string> unknown;
  std::map<std::string, bool> recorded;
  std::map<std::string, size_t> computed_by_form;  // vectors computed, by the form their kernel checks
  for (const RecordedForm& form : vectors.forms) {
    const auto found = index_of.find(form.name);
    ASSERT_NE(found, index_of.end()) << form.name << " is recorded but is no form of forms.cu";
    const Form& declared = forms[found->second];
    ASSERT_EQ(form.opcode, declared.opcode) << form.name << ": recorded for another form; record again";
    ASSERT_EQ(form.outputs, declared.outputs) << form.name;
    recorded[form.name] = true;
    EXPECT_TRUE(HasForm(form.name, form.opcode))
        << form.name << "'s SASS has no " << form.opcode << ": the kernel does not check the form it claims";
    std::vector<uint32_t> out(kThreads * kOutputs);
    std::vector<bool> computed(kThreads, true);
    std::string why;
    if (!Replay(found->second, form.in, &out, &why)) {
      // One lane's value not computed leaves the launch's outputs not computed: where the lanes are
      // independent (every form but those that read the warp), each vector runs alone, in a launch
      // of one thread.
      const std::string reason = form.name + " (" + form.opcode + "): " + why;
      size_t left_unknown = 0;
      for (uint32_t t = 0; t < kThreads; ++t) {
        std::vector<uint32_t> one_in(form.in.begin() + t * kInputs, form.in.begin() + (t + 1) * kInputs);
        std::vector<uint32_t> one_out(kOutputs);
        computed[t] = !ReadsTheWarp(declared.inputs) && Replay(found->second, one_in, &one_out, &why);
        if (computed[t])
          std::copy(one_out.begin(), one_out.end(), out.begin() + t * kOutputs);
        else
          ++left_unknown;
      }
      unknown.push_back(std::to_string(left_unknown) + " of " + std::to_string(kThreads) + " vectors of " +
                        reason);
      unknown_vectors += left_unknown;
      if (left_unknown == kThreads) continue;
    }
    ++computed_forms;
    for (uint32_t t = 0; t < kThreads; ++t) {
      if (!computed[t]) continue;
      ++computed_vectors;
      ++computed_by_form[form.opcode];
      bool same = true;
      for (uint32_t i = 0; i < kOutputs; ++i)
        same = same && out[t * kOutputs + i] == form.out[t * kOutputs + i];
      if (same) continue;
      ++differ;
      std::string line = form.name + " (" + form.opcode + ") thread " + std::to_string(t) + ": inputs";
      for (uint32_t i = 0; i < kInputs; ++i) line += " " + Hex(form.in[t * kInputs + i]);
      line += ": GPU";
      for (uint32_t i = 0; i < form.outputs; ++i) line += " " + Hex(form.out[t * kOutputs + i]);
      line += ", emulator";
      for (uint32_t i = 0; i < form.outputs; ++i) line += " " + Hex(out[t * kOutputs + i]);
      ADD_FAILURE() << line;
    }
  }
  size_t awaiting = 0;
  for (size_t i = 0; i < count; ++i) {
    if (recorded.count(forms[i].name)) continue;
    if (!kAwaitingVectors.count(forms[i].name)) {
      ADD_FAILURE() << forms[i].name << " has no vectors: record them on the GPU";
      continue;
    }
    ++awaiting;
    std::printf("  awaiting vectors (record them on the GPU): %s (%s)\n", forms[i].name, forms[i].opcode);
    EXPECT_TRUE(HasForm(forms[i].name, forms[i].opcode))
        << forms[i].name << "'s SASS has no " << forms[i].opcode
        << ": the kernel does not check the form it claims";
  }
  // The table of forms the output pass computes (internal/checked_forms.def): each must have vectors
  // the emulator computes (and, above, computes equal to the GPU's).
  size_t table_size = 0;
  const char* const* table = emulate::internal::CheckedForms(&table_size);
  for (size_t i = 0; i < table_size; ++i)
    EXPECT_GT(computed_by_form[table[i]], 0u)
        << table[i] << " is in internal/checked_forms.def but no vector of it is recorded and computed";
  for (const std::string& line : unknown) std::printf("  not computed: %s\n", line.c_str());
  std::printf("%zu forms, %zu vectors, %zu differ; not computed: %zu vectors of %zu forms\n", computed_forms,
              computed_vectors, differ, unknown_vectors, unknown.size());
  if (awaiting > 0) std::printf("awaiting vectors: %zu forms of forms.cu\n", awaiting);
}

}  // namespace
}  // namespace bankcheck::conformance
