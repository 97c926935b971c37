#!/usr/bin/env bash
# gtest_abi_test.sh FILE...: the libraries and objects that `cmake --install` installs compiled
# (FILE: static libraries, object files) refer to nothing of GoogleTest or gMock (namespace
# testing::). GoogleTest keeps no ABI between releases: an object compiled against one GoogleTest
# fails to link, or worse, in a project that uses another (GoogleTest 1.14 made
# Test::RecordProperty(const std::string&, int) an inline template: "undefined reference to
# testing::Test::RecordProperty(std::string const&, int)"). Code that includes a GoogleTest header
# belongs to the layers built from source in the project that uses them
# (cmake/BankcheckGoogleTestLayers.cmake).
set -euo pipefail
(($# > 0)) || { echo "usage: $0 FILE..." >&2; exit 2; }
command -v nm >/dev/null || { echo "gtest_abi_test.sh: nm (binutils) is needed" >&2; exit 2; }
symbols=$(nm -A -C "$@") || { echo "gtest_abi_test.sh: nm could not read the files above" >&2; exit 2; }
# Defined or not (a weak copy of an inline function or a typeinfo is as version-bound as a call).
bad=$(grep -E '[^A-Za-z0-9_:]testing::' <<<"$symbols" | sed -E 's/^([^ ]*): *[0-9a-f]* *([A-Za-z]) /\1 \2 /' | sort -u || true)
if [[ -n "$bad" ]]; then
  echo "FAIL: installed compiled libraries or objects refer to GoogleTest, whose ABI differs between versions:"
  head -40 <<<"$bad"
  echo "($(wc -l <<<"$bad") symbols in $(cut -d' ' -f1 <<<"$bad" | sort -u | wc -l) files; move the code that includes" \
    "a GoogleTest header to a layer of cmake/BankcheckGoogleTestLayers.cmake, built with the user's GoogleTest)"
  exit 1
fi
echo "ok: $# installed compiled libraries and objects refer to nothing of GoogleTest"
