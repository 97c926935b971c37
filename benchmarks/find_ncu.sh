# Sourced by the ncu_*.sh scripts: sets `ncu` to Nsight Compute's command line (NCU, else ncu on
# PATH, else under /usr/local/cuda*/bin or /opt/nvidia/nsight-compute), or calls `die`.
# shellcheck shell=bash
ncu="${NCU:-$(command -v ncu || true)}"
if [[ -z "$ncu" ]]; then
  for candidate in /usr/local/cuda/bin/ncu /usr/local/cuda-*/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do
    if [[ -x "$candidate" ]]; then ncu=$candidate; break; fi
  done
fi
[[ -n "$ncu" && -x "$ncu" ]] || die "Nsight Compute (ncu) not found: put it on PATH or set NCU=/path/to/ncu"
