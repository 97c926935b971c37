#!/usr/bin/env bash
# ci/checks/toolkit-reads.sh, the CPU gate's check that nothing outside the wheels' toolkit reached the
# build, catches what it should: a real link (gcc -Wl,--trace) that takes libcudadevrt.a from a
# folder beside the toolkit, as ld took /usr/local/lib64/libcudadevrt.a on a machine with a CUDA
# install, fails naming the file; the same link against the toolkit's lib64 (a link to its lib/, as
# bankcheck-ci-cpu lays it out) passes; a depfile that names a header outside fails; and a log in
# the older trace forms (`-lname (/path)`, `(/path)member`) and a path relative to the link's
# folder are read too. CPU only (gcc, ar).
set -euo pipefail
ci="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-toolkit-reads.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAILED: $*" >&2
  failures=$((failures + 1))
}
command -v gcc >/dev/null && command -v ar >/dev/null || { echo "FAILED: needs gcc and ar" >&2; exit 1; }

# A toolkit (the wheels' layout: lib/, lib64 a link to it), another CUDA install beside it, a build.
mkdir -p "$tmp/toolkit/lib" "$tmp/other/lib64" "$tmp/other/include" "$tmp/build/CMakeFiles/x.dir"
ln -s lib "$tmp/toolkit/lib64"
echo 'int cuda_devrt(void) { return 1; }' >"$tmp/devrt.c"
gcc -c "$tmp/devrt.c" -o "$tmp/devrt.o"
ar rc "$tmp/toolkit/lib/libcudadevrt.a" "$tmp/devrt.o"
ar rc "$tmp/other/lib64/libcudadevrt.a" "$tmp/devrt.o"
echo 'int cuda_devrt(void); int main(void) { return cuda_devrt() - 1; }' >"$tmp/build/main.c"
gcc -c "$tmp/build/main.c" -o "$tmp/build/main.o"

# check NAME EXPECTED-STATUS ARGS...: runs the checker; its output in $out.
check() {
  local name="$1" expected="$2" status=0
  shift 2
  out="$(bash "$ci/toolkit-reads.sh" --toolkit "$tmp/toolkit" --allow "$tmp/build" "$@" 2>&1)" || status=$?
  [[ "$status" == "$expected" ]] || fail "$name: exit $status, expected $expected: $out"
}

# The planted read: ld finds libcudadevrt.a in the other install (the toolkit's lib64 not searched).
gcc "$tmp/build/main.o" -Wl,--trace -L"$tmp/other/lib64" -lcudadevrt -o "$tmp/build/a.out" >"$tmp/outside.log" 2>&1
check "a library from another install" 1 "$tmp/outside.log"
[[ "$out" == "$tmp/other/lib64/libcudadevrt.a" ]] || fail "a library from another install: printed '$out', not that library alone"

# The same link through the toolkit's lib64: nothing outside (the C library and crt files are the
# distribution's, the object the build's).
gcc "$tmp/build/main.o" -Wl,--trace -L"$tmp/toolkit/lib64" -lcudadevrt -o "$tmp/build/a.out" >"$tmp/inside.log" 2>&1
grep -q "^$tmp/toolkit/lib64/libcudadevrt.a\$" "$tmp/inside.log" || fail "the trace does not name the toolkit's library: $(cat "$tmp/inside.log")"
check "the toolkit's library" 0 "$tmp/inside.log"
[[ -z "$out" ]] || fail "the toolkit's library: printed '$out'"

# A compiler's depfile naming a header of the other install.
touch "$tmp/other/include/cuda_runtime.h"
printf 'CMakeFiles/x.dir/k.cu.o: %s \\\n  /usr/include/stdio.h %s\n' "$tmp/build/main.c" "$tmp/other/include/cuda_runtime.h" \
  >"$tmp/build/CMakeFiles/x.dir/k.cu.o.d"
check "a header from another install" 1 --depfiles "$tmp/build"
[[ "$out" == "$tmp/other/include/cuda_runtime.h" ]] || fail "a header from another install: printed '$out'"

# ld's older trace forms, indented as in CMake's configure log.
printf '  -lcudadevrt (%s)\n  (%s)devrt.o\n' "$tmp/other/lib64/libcudadevrt.a" "$tmp/other/lib64/libcudadevrt.a" >"$tmp/old.log"
check "the older trace forms" 1 "$tmp/old.log"
[[ "$out" == "$tmp/other/lib64/libcudadevrt.a" ]] || fail "the older trace forms: printed '$out'"

# A library by a path relative to the link's folder, out of the build.
(cd "$tmp/build" && gcc main.o -Wl,--trace ../other/lib64/libcudadevrt.a -o a.out) >"$tmp/relative.log" 2>&1
grep -qx '../other/lib64/libcudadevrt.a' "$tmp/relative.log" || fail "the trace does not name the relative path: $(cat "$tmp/relative.log")"
check "a relative path out of the build" 1 --relative-to "$tmp/build" "$tmp/relative.log"
[[ "$out" == "$tmp/other/lib64/libcudadevrt.a" ]] || fail "a relative path out of the build: printed '$out'"

check "a missing log" 2 "$tmp/no-such.log"

((failures == 0)) || exit 1
echo "ci/checks/toolkit-reads_test.sh: all passed"
