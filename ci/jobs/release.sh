#!/usr/bin/env bash
# The release's steps after the build and the CPU tests (ci/test.sh -L cpu), as
# .github/workflows/release.yml runs them for a tag v<version>, and as CI runs them without one
# (--dry-run, from .ci/run) on the build folder it has already made:
#
#   1. the version: project(bankcheck VERSION ...), read from the build folder's cache; with --tag,
#      the tag must be v<that version>; the README and the example project pin it (GIT_TAG
#      v<version>, bankcheck-suite.yml@<commit>  # v<version>), not main
#   2. cmake --install --strip of the build folder into <out>/stage/bankcheck-<version>-linux-<machine>-cuda<major>/
#      (the CUDA major version that built it); every place that reports the version agrees on the
#      installed tree (cmake/CheckVersion.cmake: bin/bankcheck --version, the CMake package's
#      version file, the changelog's section)
#   3. the tarball <out>/bankcheck-<version>-linux-<machine>-cuda<major>.tar.gz (one top folder, files
#      in name order, owner 0, dates of the release commit: the same build packs the same bytes),
#      <out>/SHA256SUMS, and <out>/release-notes.md (the changelog's section of the version)
#   4. the tarball checked as a user receives it: the checksum verifies (sha256sum -c); it holds
#      bin/bankcheck, bin/bankcheck-ci and the parts it sources, bin/bankcheck-ci-cpu and its CUDA
#      wheels' pins (share/bankcheck), the CMake package, every public header, the license and notices (and
#      lib/libbankcheck_inject.so and lib/libbankcheck_nvtx.so when built with the GPU side);
#      unpacked elsewhere, its bankcheck prints the version
#
#   ci/jobs/release.sh --tag v0.2.0 --out dist    the release workflow
#   ci/jobs/release.sh --dry-run                  CI: into a temporary folder, removed after; the tag
#                                            check run with v<version> (accepted) and a wrong tag
#                                            (refused)
# Exit status: 0 when the tarball is made and checked, 1 when a check fails, 2 for a usage error.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

die() {
  echo "ci/jobs/release.sh: error: $1" >&2
  exit "${2:-1}"
}
usage() { die "$1 (usage: ci/jobs/release.sh --tag v<version> --out DIR | --dry-run)" 2; }

tag="" out="" dry_run=0
while (($#)); do
  case "$1" in
    --tag) (($# >= 2)) || usage "--tag needs a value"; tag="$2"; shift 2 ;;
    --out) (($# >= 2)) || usage "--out needs a value"; out="$2"; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    *) usage "unknown argument '$1'" ;;
  esac
done
if ((dry_run)); then
  [[ -z "$tag" && -z "$out" ]] || usage "--dry-run takes neither --tag nor --out"
else
  [[ -n "$tag" && -n "$out" ]] || usage "give --tag and --out, or --dry-run"
fi

# 1. The version, as the build folder's configure step read it from CMakeLists.txt.
cache="$BUILD_DIR/CMakeCache.txt"
[[ -f "$cache" ]] || die "no build in $BUILD_DIR (no CMakeCache.txt): run ci/test.sh first"
[[ "$(sed -n 's/^CMAKE_PROJECT_NAME:STATIC=//p' "$cache")" == bankcheck ]] ||
  die "$BUILD_DIR is not a build of bankcheck as the top-level project"
version="$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$cache")"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "the build's project version '$version' is not major.minor.patch"

# tag_matches TAG: whether TAG names this version (v<version>, nothing more).
tag_matches() { [[ "$1" == "v$version" ]]; }
if ((dry_run)); then
  tag="v$version"
  ! tag_matches "v$version.1" || die "the tag check accepted v$version.1 for version $version"
fi
tag_matches "$tag" ||
  die "the tag '$tag' is not v$version, the version in CMakeLists.txt (project(bankcheck VERSION ...)): set the version there, or tag v$version"

# What users copy pins this version: the README's FetchContent and workflow snippets, the example
# project and its workflow; none takes main.
pins=("README.md:GIT_TAG v$version" "README.md:bankcheck-suite.yml@<commit>  # v$version"
  "examples/CMakeLists.txt:GIT_TAG v$version" "examples/CMakeLists.txt:find_package(bankcheck ${version%.*} "
  "examples/.github/workflows/gpu.yml:bankcheck-suite.yml@<commit>  # v$version")
for pin in "${pins[@]}"; do
  grep -qF -- "${pin#*:}" "$BANKCHECK_ROOT/${pin%%:*}" || die "${pin%%:*} does not pin this version: no '${pin#*:}'"
done
if grep -nE 'GIT_TAG main|bankcheck-suite\.yml@main' "$BANKCHECK_ROOT/README.md" "$BANKCHECK_ROOT/examples/CMakeLists.txt" \
  "$BANKCHECK_ROOT/examples/.github/workflows/gpu.yml"; then
  die "the lines above take bankcheck's main branch: pin v$version"
fi

cuda_version="$(sed -n 's/^set(CMAKE_CUDA_COMPILER_VERSION "\([0-9.]*\)")$/\1/p' "$BUILD_DIR"/CMakeFiles/*/CMakeCUDACompiler.cmake 2>/dev/null | head -n 1 || true)"
[[ -n "$cuda_version" ]] || die "$BUILD_DIR was built without CUDA (no CMakeCUDACompiler.cmake): a release holds the GPU side"
name="bankcheck-$version-linux-$(uname -m)-cuda${cuda_version%%.*}"

if ((dry_run)); then
  out="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-release.XXXXXX")"
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"
tarball="$name.tar.gz"
rm -rf "$out/stage" "$out/unpacked" "$out/${tarball:?}" "$out/SHA256SUMS" "$out/release-notes.md"

# 2. The installed tree, and the version it reports.
root="$out/stage/$name"
echo "ci/jobs/release.sh: installing bankcheck $version (CUDA $cuda_version) into $root"
cmake --install "$BUILD_DIR" --prefix "$root" --strip >"$out/install.log" ||
  { cat "$out/install.log"; die "cmake --install failed (above)"; }
docs="$root/share/doc/bankcheck"
cmake -D "VERSION=$version" -D "CLI=$root/bin/bankcheck" \
  -D "VERSION_FILE=$(echo "$root"/lib*/cmake/bankcheck/bankcheckConfigVersion.cmake)" \
  -D "CHANGELOG=$docs/CHANGELOG.md" -P "$BANKCHECK_ROOT/cmake/CheckVersion.cmake" ||
  die "the installed tree does not report version $version everywhere (above)"

# 3. The tarball, its checksum and the release notes. The dates are the release commit's, where
# there is one (a tarball of a source folder without git takes the install's).
epoch="$(git -C "$BANKCHECK_ROOT" log -1 --format=%ct 2>/dev/null || date +%s)"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$out/stage" -cf - "$name" |
  gzip -n >"$out/$tarball"
(cd "$out" && sha256sum "$tarball" >SHA256SUMS)
awk -v heading="## [$version]" 'index($0, heading) == 1 { keep = 1; next } keep && /^## \[/ { exit } keep' \
  "$BANKCHECK_ROOT/CHANGELOG.md" >"$out/release-notes.md"
[[ -s "$out/release-notes.md" ]] || die "CHANGELOG.md's section for $version is empty"

# 4. What a user receives: the checksum, the contents, the command where it is unpacked.
(cd "$out" && sha256sum --check --strict SHA256SUMS) || die "SHA256SUMS does not verify $tarball"
listing="$(tar -tzf "$out/$tarball")"
required=(bin/bankcheck bin/bankcheck-ci share/bankcheck/bankcheck-ci-report.sh share/bankcheck/bankcheck-ci-baselines.sh
  bin/bankcheck-ci-cpu share/bankcheck/cuda-wheels-requirements.txt
  share/doc/bankcheck/LICENSE share/doc/bankcheck/NOTICE
  share/doc/bankcheck/THIRD-PARTY-NOTICES share/doc/bankcheck/CHANGELOG.md)
for file in bankcheckConfig.cmake bankcheckConfigVersion.cmake bankcheckTargets.cmake BankcheckKernelSuite.cmake; do
  required+=("$(cd "$root" && echo lib*/cmake/bankcheck/$file)")
done
while IFS= read -r header; do  # include/bankcheck/<layer>/*.h and bankcheck/bankcheck.h
  required+=("include/${header#"$BANKCHECK_ROOT"/framework/include/}")
done < <(find "$BANKCHECK_ROOT/framework/include/bankcheck" -name '*.h' | sort)
if grep -q '^BANKCHECK_ENABLE_CUDA:BOOL=ON$' "$cache"; then
  required+=("$(cd "$root" && echo lib*/libbankcheck_inject.so)" "$(cd "$root" && echo lib*/libbankcheck_nvtx.so)")
fi
missing=()
for file in "${required[@]}"; do
  grep -qxF "$name/$file" <<<"$listing" || missing+=("$file")
done
((${#missing[@]} == 0)) || die "$tarball lacks: ${missing[*]}"
if grep -v -e "^$name/" -e "^$name\$" <<<"$listing"; then die "$tarball has entries outside $name/ (above)"; fi
mkdir -p "$out/unpacked"
tar -xzf "$out/$tarball" -C "$out/unpacked"
printed="$("$out/unpacked/$name/bin/bankcheck" --version)"
[[ "$printed" == "bankcheck $version" ]] || die "the unpacked bin/bankcheck printed '$printed', not 'bankcheck $version'"
rm -rf "$out/stage" "$out/unpacked" "$out/install.log"

echo "ci/jobs/release.sh: $tarball ($(du -h "$out/$tarball" | cut -f1), ${#required[@]} required files present," \
  "checksum verified, unpacked bin/bankcheck prints '$printed')"
cat "$out/SHA256SUMS"
if ((dry_run)); then
  echo "ci/jobs/release.sh: dry run for tag $tag: as expected (the files were in $out, now removed)"
else
  echo "ci/jobs/release.sh: $out/$tarball, $out/SHA256SUMS and $out/release-notes.md ready for the release $tag"
fi
