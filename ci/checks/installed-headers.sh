#!/usr/bin/env bash
# ci/checks/installed-headers.sh PREFIX: compiles every header that `cmake --install` put under
# PREFIX/include on its own (as nvbench's header tests do), so that no installed header depends on
# one that is not installed or on what another header happened to include first. Each header is
# included twice (its include guard) in a translation unit of its own, with warnings as errors.
# Include paths: the prefix's, CUDA's (the CUDA-side headers use the runtime's types), GoogleTest's
# from the system. Exits non-zero naming every header that does not compile alone.
set -euo pipefail
prefix="$1"
include="$prefix/include"
[[ -d "$include/bankcheck" ]] || { echo "installed-headers: no $include/bankcheck; install first" >&2; exit 2; }
cuda_include="$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")/../include"
cxx="${CXX:-c++}"
failed=0 count=0
while IFS= read -r header; do
  name="${header#"$include"/}"
  count=$((count + 1))
  if ! printf '#include "%s"\n#include "%s"\n' "$name" "$name" |
    "$cxx" -std=c++17 -fsyntax-only -Wall -Wextra -Werror -x c++ -I "$include" -isystem "$cuda_include" - \
      >"$prefix/header-check.log" 2>&1; then
    echo "installed-headers: $name does not compile on its own:" >&2
    head -20 "$prefix/header-check.log" >&2
    failed=$((failed + 1))
  fi
done < <(find "$include/bankcheck" -name '*.h' | sort)
((count > 0)) || { echo "installed-headers: no header under $include/bankcheck" >&2; exit 2; }
if ((failed)); then
  echo "installed-headers: $failed of $count installed headers do not compile alone" >&2
  exit 1
fi
echo "installed-headers: all $count installed headers compile on their own"
