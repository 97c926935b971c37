#!/usr/bin/env bash
# bankcheck-ci-cpu.sh builds what each kernel suite has: a suite whose kernels leave out sm_90 (its
# own CUDA_ARCHITECTURES override the gate's 90) has no <suite>_emulated, and the gate says so and
# builds its GPU program for the test that stands in for its emulated tests, instead of failing
# with "No rule to make target '<suite>_emulated'" after announcing sm_90. The toolkit's wheels, the
# host packages, CMake and bankcheck-ci are stand-ins here (no network, no compiler). CPU only.
set -euo pipefail
consumer="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAILED: $*"
  failures=$((failures + 1))
}

# The script beside its pins, with a bankcheck-ci that only says how it was called.
mkdir -p "$tmp/scripts" "$tmp/bin" "$tmp/src"
cp "$consumer/bankcheck-ci-cpu.sh" "$consumer/cuda-wheels-requirements.txt" "$tmp/scripts/"
cat >"$tmp/scripts/bankcheck-ci.sh" <<'STUB'
#!/bin/bash
echo "bankcheck-ci $*"
STUB
# Every host package installed; CMake configures the suites of $SUITES (NAME:REASON ..., an empty
# REASON: the suite has an emulated program; NAME:old a .suite file of a bankcheck before the key)
# and builds only the targets that exist.
cat >"$tmp/bin/dpkg-query" <<'STUB'
#!/bin/bash
echo "install ok installed"
STUB
cat >"$tmp/bin/cmake" <<'STUB'
#!/bin/bash
build="" targets=() in_targets=0
while (($#)); do
  case "$1" in
    -B) build="$2"; shift 2; continue ;;
    --build) build="$2"; shift 2; continue ;;
    --target) in_targets=1 ;;
    -*) in_targets=0 ;;
    *) ((in_targets)) && targets+=("$1") ;;
  esac
  shift
done
if [[ -z "${targets[*]}" ]]; then  # configure
  mkdir -p "$build/bankcheck-suites"
  for suite in $SUITES; do
    name="${suite%%:*}" reason="${suite#*:}"
    { echo "target=$name"; echo "results_dir=$build/$name-results"; echo "test_prefix=$name"
      [[ "$reason" == old ]] || echo "no_emulated_program=${reason//_/ }"
      echo "cli="; } >"$build/bankcheck-suites/$name.suite"
  done
  exit 0
fi
for target in "${targets[@]}"; do
  grep -qx "$target" "$KNOWN" || { echo "make: *** No rule to make target '$target'.  Stop." >&2; exit 2; }
done
echo "${targets[*]}" >"$BUILT"
STUB
chmod +x "$tmp/scripts/"*.sh "$tmp/bin/"*
# The toolkit's wheels as the script lays them out, already installed for these pins.
cu13="$tmp/build/cuda-venv/lib/python3.12/site-packages/nvidia/cu13"
mkdir -p "$cu13/bin" "$cu13/nvvm/bin" "$cu13/lib"
printf '#!/bin/bash\necho "Cuda compilation tools, release 13.0"\n' >"$cu13/bin/nvcc"
for tool in bin/cuobjdump bin/nvdisasm nvvm/bin/cicc; do printf '#!/bin/bash\n' >"$cu13/$tool"; done
chmod +x "$cu13/bin/"* "$cu13/nvvm/bin/cicc"
touch "$cu13/lib/libcudart.so" "$cu13/lib/libcupti.so"
sha256sum <"$consumer/cuda-wheels-requirements.txt" >"$tmp/build/cuda-venv/bankcheck-wheels.txt"

# gate SUITES KNOWN-TARGETS...: runs the script (with $GATE_ARGS); its output in $tmp/out, its
# status in $status.
gate() {
  local suites="$1"
  shift
  rm -rf "$tmp/build/bankcheck-suites" "$tmp/built"
  printf '%s\n' "$@" >"$tmp/known"
  status=0
  # shellcheck disable=SC2086
  SUITES="$suites" KNOWN="$tmp/known" BUILT="$tmp/built" PATH="$tmp/bin:$PATH" \
    bash "$tmp/scripts/bankcheck-ci-cpu.sh" --source "$tmp/src" --build "$tmp/build" -j 1 ${GATE_ARGS:-} \
    >"$tmp/out" 2>&1 || status=$?
}

# A suite built for sm_80 only beside one built for sm_90.
reason='its_kernels_are_built_for_CUDA_ARCHITECTURES_"80",_without_sm_90_SASS'
gate "a: nc_suite:$reason" a a_emulated nc_suite
[[ "$status" == 0 ]] || fail "an sm_80-only suite failed the gate's build ($status): $(cat "$tmp/out")"
grep -q "No rule to make target" "$tmp/out" && fail "the gate built a target that does not exist: $(cat "$tmp/out")"
[[ "$(cat "$tmp/built" 2>/dev/null)" == "a_emulated nc_suite" ]] ||
  fail "built '$(cat "$tmp/built" 2>/dev/null)', not the one emulated program and the sm_80 suite's GPU program"
grep -q 'suite nc_suite has no sm_90 emulated program (its kernels are built for CUDA ARCHITECTURES "80", without sm 90 SASS)' "$tmp/out" ||
  fail "no line says which suite has no emulated program and why: $(cat "$tmp/out")"
grep -q "bankcheck-ci --prebuilt" "$tmp/out" || fail "bankcheck-ci did not run: $(cat "$tmp/out")"

# A .suite file written before it said whether there is an emulated program: as before.
gate "a:old" a a_emulated
[[ "$status" == 0 && "$(cat "$tmp/built" 2>/dev/null)" == "a_emulated" ]] ||
  fail "a .suite file without no_emulated_program: status $status, built '$(cat "$tmp/built" 2>/dev/null)'"

# First baselines from the emulator (the CPU-gate workflow's `emulated-baselines` input): the flag
# reaches bankcheck-ci, which records them (framework/ci/bankcheck-ci-first-baselines_test.sh).
GATE_ARGS=--emulated-baselines gate "a:" a a_emulated
grep -q "^bankcheck-ci --prebuilt .* --emulated-baselines -- -L emulate$" "$tmp/out" ||
  fail "--emulated-baselines did not reach bankcheck-ci: $(cat "$tmp/out")"
gate "a:" a a_emulated
grep -q -- "--emulated-baselines" "$tmp/out" && fail "bankcheck-ci was asked for first baselines unasked: $(cat "$tmp/out")"

((failures == 0)) || exit 1
echo "bankcheck-ci-cpu_test: all passed"
