#!/usr/bin/env bash
# Installs the Debian packages bankcheck builds with, if any is missing. As root it installs them;
# otherwise it prints the exact apt-get command and exits 1. The CUDA Toolkit 13 (nvcc, cudart,
# CUPTI) is not a Debian package here: it must already be installed, with nvcc on PATH or in
# /usr/local/cuda/bin.
#
# Optional: CuTe's headers, for the CuTe kernels (kernels/wgmma_layouts.cu, kernels/cute_gemm.cu),
# from the nvidia-cutlass wheel (headers and python; installed without its dependencies), with pip
# --target into <build folder>/cute-headers, where cmake/BankcheckCute.cmake looks. Nothing of the
# system's python is changed, so this works as root and beside a distribution's own python (PEP 668).
# Without pip, or when pip fails (offline), it says so and goes on: those cases then skip.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"  # BUILD_DIR

# googletest: GoogleTest's sources (/usr/src/googletest), which ci/jobs/example.sh builds as a project
# that brings its own GoogleTest does. python3-pip: ci/jobs/example.sh installs the newest CMake from PyPI.
# python3-venv: ci/jobs/wheel.sh's and ci/jobs/zizmor.sh's venvs. python3-yaml: ci/checks/check-workflows.sh reads the
# workflows' jobs with it. libopencv-core-dev: OpenCV's CUDA device headers (opencv2/core/cuda/*.hpp,
# Apache-2.0), whose templates the corpus's opencv_* cases instantiate (corpus/kernels/opencv_*.cu,
# written against Debian 12's 4.6.0+dfsg-12; header-only: no OpenCV library is linked). Without it
# those cases skip, saying why (cmake/BankcheckOpenCV.cmake).
packages=(cmake make g++ libgtest-dev libgmock-dev googletest libbenchmark-dev nlohmann-json3-dev libcli11-dev
  python3-pip python3-venv python3-yaml libopencv-core-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]]; then
    echo "bankcheck: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "bankcheck: missing packages: ${missing[*]}" >&2
    echo "Install them with:  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

if ! command -v nvcc >/dev/null 2>&1 && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "bankcheck: the CUDA Toolkit 13 (nvcc, cudart, CUPTI) was not found." >&2
  echo "Install it from NVIDIA's packages (cuda-toolkit-13-0) and put nvcc on PATH." >&2
  exit 1
fi

cute_wheel="nvidia-cutlass==4.2.0.0"  # the version the CuTe kernels were built with
cute_dir="$BUILD_DIR/cute-headers"
if [[ -f "$cute_dir/cutlass_library/source/include/cute/tensor.hpp" ]] ||
  python3 -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('cutlass_library') is None)" 2>/dev/null; then
  :  # CuTe's headers are there already
elif python3 -m pip --version >/dev/null 2>&1; then
  echo "bankcheck: installing CuTe's headers ($cute_wheel) into $cute_dir"
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --retries 1 --timeout 20 --no-deps --target "$cute_dir" "$cute_wheel" ||
    echo "bankcheck: note: could not install $cute_wheel (above why): the wgmma_layouts and cute_gemm cases will skip" >&2
else
  echo "bankcheck: note: python3 -m pip not found, so CuTe's headers were not installed: the wgmma_layouts" \
    "and cute_gemm cases will skip. To run them: python3 -m pip install --target '$cute_dir' --no-deps $cute_wheel" \
    "(or any nvidia-cutlass install; see README)" >&2
fi

# Optional: FlashInfer's CUDA headers, for the corpus's FlashInfer cases (corpus/kernels/flashinfer_*.cu),
# and the newer CCCL headers they are written against: the wheels of ci/requirements/flashinfer-requirements.txt
# (pinned, their SHA-256 checked), downloaded without dependencies, of which only the include trees
# are extracted into <build folder>/flashinfer-headers (include/: flashinfer-python's
# flashinfer/data/include; cccl/: nvidia-cuda-cccl's nvidia/cu13/include/cccl), where
# cmake/BankcheckFlashInfer.cmake looks; the wheels are not kept nor installed. Offline, or without
# pip, it says so and goes on: those cases skip.
flashinfer_requirements="$BANKCHECK_ROOT/ci/requirements/flashinfer-requirements.txt"
flashinfer_pins="$(grep -o '^[A-Za-z0-9_.-]*==[^ ]*' "$flashinfer_requirements" | paste -sd ' ')"
flashinfer_dir="$BUILD_DIR/flashinfer-headers"
if [[ -f "$flashinfer_dir/include/flashinfer/norm.cuh" && "$(cat "$flashinfer_dir/VERSION" 2>/dev/null)" == "$flashinfer_pins" ]]; then
  :  # there already, at the pinned versions
elif python3 -m pip --version >/dev/null 2>&1; then
  echo "bankcheck: installing FlashInfer's and CCCL's headers ($flashinfer_pins) into $flashinfer_dir"
  flashinfer_download="$(mktemp -d)"
  if python3 -m pip download --quiet --disable-pip-version-check --retries 1 --timeout 20 --no-deps \
    --only-binary :all: --require-hashes -r "$flashinfer_requirements" -d "$flashinfer_download" &&
    rm -rf "$flashinfer_dir" &&
    python3 - "$flashinfer_download" "$flashinfer_dir" <<'PYTHON'
import pathlib, sys, zipfile
download, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
# (wheel, the folder of the include tree in it, where it goes, the license file's name here)
trees = [("flashinfer_python-*.whl", "flashinfer/data/include/", "include", "LICENSE"),
         ("nvidia_cuda_cccl-*.whl", "nvidia/cu13/include/cccl/", "cccl", "cccl-License.txt")]
for pattern, prefix, folder, license_name in trees:
    wheel, = download.glob(pattern)
    with zipfile.ZipFile(wheel) as archive:
        names = [n for n in archive.namelist() if n.startswith(prefix) and not n.endswith("/")]
        if not names:
            sys.exit(f"bankcheck: {wheel.name} has no {prefix}")
        for name in names:
            target = out / folder / name[len(prefix):]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(name))
        licenses = sorted(n for n in archive.namelist() if ".dist-info/licenses/" in n and n.count("/") == 2)
        if licenses:
            (out / license_name).write_bytes(archive.read(licenses[0]))
    print(f"bankcheck: extracted {len(names)} header files of {wheel.name} into {out / folder}")
PYTHON
  then
    echo "$flashinfer_pins" >"$flashinfer_dir/VERSION"
  else
    echo "bankcheck: note: could not install $flashinfer_pins's headers (above why): the flashinfer corpus cases will skip" >&2
  fi
  rm -rf "$flashinfer_download"
else
  echo "bankcheck: note: python3 -m pip not found, so FlashInfer's headers were not installed: the flashinfer" \
    "corpus cases will skip. To run them: python3 -m pip download --no-deps --require-hashes -r" \
    "'$flashinfer_requirements', then extract flashinfer-python's flashinfer/data/include into" \
    "'$flashinfer_dir/include' and nvidia-cuda-cccl's nvidia/cu13/include/cccl into '$flashinfer_dir/cccl'" >&2
fi

# Optional: GoogleTest 1.15.1's sources (GOOGLETEST_OTHER_VERSION), for ci/jobs/example.sh's build of the example against the
# installed bankcheck with a GoogleTest other than the system's: the wheels of
# ci/requirements/googletest-requirements.txt (pinned, hash-checked; any Python's pip downloads the cp311 x86_64
# ones, of which only the sources are used), downloaded without dependencies, their include/ and src/
# trees extracted into GOOGLETEST_OTHER_DIR/src/{gtest,gmock}; the wheels are not kept
# nor installed. Offline, or without pip, it says so and goes on: ci/jobs/example.sh then fails in CI
# (CI=true) and leaves that check out elsewhere, saying so.
googletest_version="$GOOGLETEST_OTHER_VERSION"  # ci/lib/common.sh: the pins of ci/requirements/googletest-requirements.txt
googletest_dir="$GOOGLETEST_OTHER_DIR/src"
if [[ -f "$googletest_dir/gtest/src/gtest-all.cc" && -f "$googletest_dir/gmock/src/gmock-all.cc" ]]; then
  :  # there already
elif python3 -m pip --version >/dev/null 2>&1; then
  echo "bankcheck: installing GoogleTest $googletest_version's sources (ros-gtest-vendor, ros-gmock-vendor) into $googletest_dir"
  googletest_download="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-googletest.XXXXXX")"
  if python3 -m pip download --quiet --disable-pip-version-check --retries 1 --timeout 20 --no-deps \
    --only-binary :all: --python-version 3.11 --platform manylinux_2_28_x86_64 --implementation cp --abi cp311 \
    --require-hashes -r "$BANKCHECK_ROOT/ci/requirements/googletest-requirements.txt" -d "$googletest_download" &&
    # Unpacked beside the final folder, then moved: an interrupted run leaves no half folder there.
    rm -rf "$googletest_dir" "$googletest_dir.partial" &&
    python3 - "$googletest_download" "$googletest_dir.partial" "$googletest_version" <<'PY'
import pathlib, sys, zipfile
download, out, version = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
for name in ("gtest", "gmock"):
    wheel, = download.glob(f"ros_{name}_vendor-{version}-*.whl")
    prefix = f"ros_{name}_vendor-{version}.data/data/src/{name}_vendor/"
    with zipfile.ZipFile(wheel) as archive:
        names = [n for n in archive.namelist() if n.startswith((prefix + "include/", prefix + "src/"))
                 and not n.endswith("/")]
        if not any(n.endswith(f"src/{name}-all.cc") for n in names):
            sys.exit(f"bankcheck: {wheel.name} has no {prefix}src/{name}-all.cc")
        for n in names:
            target = out / name / n[len(prefix):]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(n))
    print(f"bankcheck: extracted {len(names)} files of {wheel.name} into {out / name}")
PY
  then
    mv "$googletest_dir.partial" "$googletest_dir"
  else
    echo "bankcheck: note: could not download GoogleTest $googletest_version (above why): ci/jobs/example.sh's check" \
      "with another GoogleTest cannot run" >&2
  fi
  rm -rf "$googletest_download"
else
  echo "bankcheck: note: python3 -m pip not found, so GoogleTest $googletest_version's sources were not installed:" \
    "ci/jobs/example.sh's check with another GoogleTest cannot run" >&2
fi

# Optional: nvdisasm and cuobjdump, for the emulated suite (docs/emulate.md), when the toolkit has
# none (a CUDA install without its binary utilities): NVIDIA's wheels of the same major version, with
# pip --target into <build folder>/cuda-tools, which ci/lib/common.sh puts on PATH. Without them the
# emulated cases skip (fail with BANKCHECK_REQUIRE_EMULATION=1), saying which tool could not be run
# and how to install it.
cuda_bin="$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")"
if [[ -x "$cuda_bin/nvdisasm" && -x "$cuda_bin/cuobjdump" ]] ||
  [[ -x "$CUDA_TOOLS_BIN/nvdisasm" && -x "$CUDA_TOOLS_BIN/cuobjdump" ]]; then
  :  # there already
elif python3 -m pip --version >/dev/null 2>&1; then
  cuda_tool_wheels=(nvidia-cuda-nvdisasm==13.2.86 nvidia-cuda-cuobjdump==13.2.86)
  echo "bankcheck: installing nvdisasm and cuobjdump (${cuda_tool_wheels[*]}) into $CUDA_TOOLS_DIR"
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --retries 1 --timeout 20 \
    --no-deps --target "$CUDA_TOOLS_DIR" "${cuda_tool_wheels[@]}" ||
    echo "bankcheck: note: could not install ${cuda_tool_wheels[*]} (above why): the emulated cases will skip" >&2
else
  echo "bankcheck: note: $cuda_bin has no nvdisasm or cuobjdump and python3 -m pip was not found: the emulated" \
    "cases will skip. To run them: python3 -m pip install --target '$CUDA_TOOLS_DIR' --no-deps" \
    "nvidia-cuda-nvdisasm==13.2.86 nvidia-cuda-cuobjdump==13.2.86" >&2
fi

# Optional: CuPy's sources, for the corpus's CuPy cases (corpus/kernels/cupy_signal.cu): the pinned
# cupy-cuda13x wheel (ci/requirements/cupy-requirements.txt, hash-checked) downloaded with pip and unpacked in
# part, its CUDA headers and cupyx's Python sources, into <build folder>/cupy-sources, where
# cmake/BankcheckCupy.cmake looks (nothing of the system's python changes, nothing of CuPy is run).
# Without pip, or when the download fails (offline), it says so and goes on: those cases then skip.
cupy_version="14.2.0"  # the version of ci/requirements/cupy-requirements.txt, which the CuPy cases were written for
cupy_dir="$BUILD_DIR/cupy-sources"
if [[ -d "$cupy_dir/cupy_cuda13x-$cupy_version.dist-info" ]]; then
  :  # there already
elif python3 -m pip --version >/dev/null 2>&1; then
  echo "bankcheck: installing CuPy's sources (cupy-cuda13x==$cupy_version) into $cupy_dir"
  cupy_download="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-cupy.XXXXXX")"
  if python3 -m pip download --quiet --disable-pip-version-check --retries 1 --timeout 20 --no-deps \
    --only-binary :all: --python-version 3.12 --platform manylinux2014_x86_64 --implementation cp --abi cp312 \
    --require-hashes -r "$BANKCHECK_ROOT/ci/requirements/cupy-requirements.txt" -d "$cupy_download"; then
    # Unpacked beside the final folder, then moved: an interrupted run leaves no half folder there.
    rm -rf "$cupy_dir" "$cupy_dir.partial"
    python3 - "$cupy_download"/cupy_cuda13x-"$cupy_version"-*.whl "$cupy_dir.partial" <<'PY'
import sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    z.extractall(out, [n for n in z.namelist()
                       if (n.startswith("cupy/_core/include/cupy/") and "/_cccl/" not in n)
                       or (n.startswith("cupyx/") and n.endswith(".py"))
                       or n.startswith("-".join(wheel.split("/")[-1].split("-")[:2]) + ".dist-info/")])
PY
    mv "$cupy_dir.partial" "$cupy_dir"
  else
    echo "bankcheck: note: could not download cupy-cuda13x==$cupy_version (above why): the CuPy corpus cases will skip" >&2
  fi
  rm -rf "$cupy_download"
else
  echo "bankcheck: note: python3 -m pip not found, so CuPy's sources were not installed: the CuPy corpus" \
    "cases will skip. To run them: unpack a cupy-cuda13x==$cupy_version wheel and configure with" \
    "-DBANKCHECK_CUPY_DIR=<that folder> (see docs/emulate.md, \"The corpus\")" >&2
fi
