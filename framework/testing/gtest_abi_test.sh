#!/usr/bin/env bash
# gtest_abi_test.sh FILE...: the installed libraries and objects (FILE: static libraries, object
# files) call GoogleTest only through functions that every GoogleTest version a consumer may bring
# defines out of line. GoogleTest 1.14 replaced Test::RecordProperty(const std::string&, int) by a
# template the caller instantiates, so an object compiled against an older GoogleTest that records
# an int fails to link in a project using 1.14 or later ("undefined reference to
# testing::Test::RecordProperty(std::string const&, int)"); bankcheck records every property as text.
set -euo pipefail
(($# > 0)) || { echo "usage: $0 FILE..." >&2; exit 2; }
command -v nm >/dev/null || { echo "gtest_abi_test.sh: nm (binutils) is needed" >&2; exit 2; }
# The one RecordProperty every version has: (const std::string&, const std::string&).
text_overload='testing::Test::RecordProperty(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&)'
symbols=$(nm -C --undefined-only "$@") || { echo "gtest_abi_test.sh: nm could not read the files above" >&2; exit 2; }
bad=$(sed -n 's/^ *U //p' <<<"$symbols" | grep -F 'testing::Test::RecordProperty(' | grep -vxF "$text_overload" | sort -u || true)
if [[ -n "$bad" ]]; then
  echo "FAIL: the installed objects refer to GoogleTest functions that GoogleTest 1.14 and later do not define:"
  echo "$bad"
  echo "(record the value as text: RecordProperty(key, std::to_string(value)))"
  exit 1
fi
echo "ok: $# installed libraries and objects call RecordProperty with text values only"
