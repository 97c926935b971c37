#!/usr/bin/env bash
# Tests ci/checks/check-rpath.py on small shared libraries linked here with chosen search paths: absolute
# and $ORIGIN-relative entries pass; an empty entry (a trailing ':', as CMake's build-tree padding
# leaves), a relative one ('lib', '$LIB') and the same in an old-style RPATH fail, naming the file;
# a folder is searched (an --exclude'd one is not, nor with --skip-pip what pip installed); a
# missing path is a usage error.
set -euo pipefail
check="$(dirname "${BASH_SOURCE[0]}")/check-rpath.py"
dir="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-rpath.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/expect.sh"

# lib <name> <linker option...>: an empty shared library $dir/<name> linked with the options.
lib() {
  local name="$1"
  shift
  mkdir -p "$(dirname "$dir/$name")"
  echo 'int f(void) { return 0; }' | "${CC:-cc}" -shared -fPIC -x c - -o "$dir/$name" "$@"
}

lib good.so '-Wl,-rpath,/usr/local/cuda/lib:$ORIGIN/../lib:${ORIGIN}'
expect 0 "1 with an RPATH or RUNPATH: no empty or relative entry" python3 "$check" "$dir/good.so"
lib padded.so -Wl,-rpath,/usr/local/cuda/lib:
expect 1 "$dir/padded.so: RUNPATH [/usr/local/cuda/lib:]: an empty entry (the current folder)" python3 "$check" "$dir/padded.so"
lib leading.so -Wl,-rpath,:/usr/lib
expect 1 "an empty entry" python3 "$check" "$dir/leading.so"
lib relative.so -Wl,-rpath,/usr/lib:lib
expect 1 "$dir/relative.so: RUNPATH [/usr/lib:lib]: 'lib' is relative" python3 "$check" "$dir/relative.so"
lib token.so '-Wl,-rpath,$LIB/x'
expect 1 "'\$LIB/x' is relative" python3 "$check" "$dir/token.so"
lib origin-like.so '-Wl,-rpath,$ORIGINAL'
expect 1 "'\$ORIGINAL' is relative" python3 "$check" "$dir/origin-like.so"
lib old.so -Wl,--disable-new-dtags -Wl,-rpath,/usr/lib::/opt
expect 1 "$dir/old.so: RPATH [/usr/lib::/opt]: an empty entry" python3 "$check" "$dir/old.so"

# Folders: every ELF file under them, a text file and a link skipped; --exclude leaves one out.
mkdir -p "$dir/tree/sub" "$dir/tree/third-party"
cp "$dir/good.so" "$dir/tree/"
cp "$dir/padded.so" "$dir/tree/sub/"
cp "$dir/relative.so" "$dir/tree/third-party/"
echo 'not ELF' >"$dir/tree/notes.txt"
ln -s "$dir/old.so" "$dir/tree/link.so"
expect 1 "$dir/tree/sub/padded.so: RUNPATH" python3 "$check" "$dir/tree"
expect 1 "2 empty or relative RPATH/RUNPATH entries" python3 "$check" "$dir/tree"
rm "$dir/tree/sub/padded.so"
expect 1 "$dir/tree/third-party/relative.so: RUNPATH" python3 "$check" --exclude third-party-not "$dir/tree"
expect 0 "2 ELF files" python3 "$check" --exclude third-party "$dir/tree" "$dir/good.so"
# --skip-pip: a venv and a `pip install --target` folder are not the build's.
mkdir -p "$dir/build/venv" "$dir/build/tools/pkg-1.0.dist-info" "$dir/build/tools/pkg"
touch "$dir/build/venv/pyvenv.cfg"
cp "$dir/padded.so" "$dir/build/venv/"
cp "$dir/relative.so" "$dir/build/tools/pkg/"
cp "$dir/good.so" "$dir/build/"
expect 1 "$dir/build/tools/pkg/relative.so: RUNPATH" python3 "$check" "$dir/build"
expect 0 "1 ELF files" python3 "$check" --skip-pip "$dir/build"
expect 2 "no such file or folder" python3 "$check" "$dir/missing"

expect_done ci/checks/check-rpath_test.sh
