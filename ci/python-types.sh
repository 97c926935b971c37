#!/usr/bin/env bash
# The Python package type-checked strictly: `mypy --strict` over python/bankcheck (the package the
# wheel ships, with py.typed: its annotations are part of what users type-check against) and
# python/metadata (the build's long-description provider). Fails on any error.
# mypy and pytest (whose types the plugin uses) come from PyPI, pinned with every file's hash in
# ci/python-types-requirements.txt, into a venv at <build folder>/python-types-venv (made again when
# the pins change). Without PyPI it says the check was not run and exits 0, except in CI (CI=true),
# where that fails.
#   ci/python-types.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"  # BANKCHECK_ROOT, BUILD_DIR

requirements="$BANKCHECK_ROOT/ci/python-types-requirements.txt"
venv="$BUILD_DIR/python-types-venv"
if [[ "$(cat "$venv/pins" 2>/dev/null)" != "$(sha256sum <"$requirements")" ]]; then
  rm -rf "$venv"
  mkdir -p "$BUILD_DIR"
  if ! python3 -m venv "$venv" ||
    ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --retries 1 --timeout 20 \
      --only-binary=:all: --require-hashes -r "$requirements"; then
    rm -rf "$venv"
    echo "bankcheck: could not install mypy with pip (above why; offline?): the Python package was NOT type-checked" >&2
    [[ "${CI:-}" != "true" ]] || { echo "bankcheck: CI=true: pip must reach PyPI" >&2; exit 1; }
    exit 0
  fi
  sha256sum <"$requirements" >"$venv/pins"
fi
# --no-incremental: no cache folder in the sources; the check takes seconds.
cd "$BANKCHECK_ROOT"
"$venv/bin/python" -m mypy --strict --no-incremental --python-version 3.10 python/bankcheck python/metadata ||
  { echo "bankcheck: mypy --strict found errors in the Python package (above): annotate them" >&2; exit 1; }
echo "bankcheck: mypy $("$venv/bin/python" -m mypy --version | cut -d' ' -f2) --strict: the Python package is typed"
