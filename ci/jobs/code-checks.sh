#!/usr/bin/env bash
# Two checks of the code that its compilers do not make, each failing CI:
#   - the Python package type-checked strictly: `mypy --strict` over python/bankcheck (the package the
#     wheel ships, with py.typed: its annotations are part of what users type-check against) and
#     python/metadata (the build's long-description provider);
#   - no C++ or CUDA function over 100 lines (lizard's length: from its signature to its closing
#     brace) in the project's own code: framework/, benchmarks/, kernels/, suites/, examples/,
#     corpus/ but not corpus/kernels/ (code written elsewhere, kept as upstream wrote it).
# The tools come from PyPI, pinned with every file's hash in ci/requirements/code-checks-requirements.txt, into a
# venv at <build folder>/code-checks-venv (made again when the pins change). Without PyPI it says the
# checks were not run and exits 0, except in CI (CI=true), where that fails.
#   ci/jobs/code-checks.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"  # BANKCHECK_ROOT, BUILD_DIR

requirements="$BANKCHECK_ROOT/ci/requirements/code-checks-requirements.txt"
venv="$BUILD_DIR/code-checks-venv"
bankcheck_pinned_venv "$venv" "$requirements" "the Python types and function lengths were" || exit 0
cd "$BANKCHECK_ROOT"
status=0
# --no-incremental: no cache folder in the sources; the check takes seconds.
if "$venv/bin/python" -m mypy --strict --no-incremental --python-version 3.10 python/bankcheck python/metadata; then
  echo "bankcheck: mypy $("$venv/bin/python" -m mypy --version | cut -d' ' -f2) --strict: the Python package is typed"
else
  echo "bankcheck: mypy --strict found errors in the Python package (above): annotate them" >&2
  status=1
fi
max_lines=100
# -w: only the functions over a limit, one line each; the other limits are set out of reach.
long="$("$venv/bin/lizard" -l cpp -w -L "$max_lines" -C 100000 -a 1000 -T nloc=100000 -T token_count=10000000 \
  -x './corpus/kernels/*' -x './build*' framework benchmarks kernels suites examples corpus 2>&1 || true)"
if [[ -n "$long" ]]; then
  echo "$long" >&2
  echo "bankcheck: $(wc -l <<<"$long") function(s) over $max_lines lines (above): split them into named steps" >&2
  status=1
else
  echo "bankcheck: lizard $("$venv/bin/lizard" --version): no function over $max_lines lines"
fi
exit "$status"
