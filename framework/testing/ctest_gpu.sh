# Sourced by bankcheck's GPU tests that are scripts (examples/python/run_triton_gate.sh,
# framework/inject/run_gpu_test.sh, framework/inject/run_capture_test.sh): narrows
# CUDA_VISIBLE_DEVICES to the GPU CTest allocated (ctest --resource-spec-file), as bankcheck's own
# GPU test programs take it (framework/testing/testing.cc): the id indexes CUDA_VISIBLE_DEVICES when
# that is set. The allocation is then taken off the environment, so that nothing after applies it a
# second time to the narrowed list. Returns 1, with the reason on stderr, when the allocation names
# no usable GPU.
if [[ -n "${CTEST_RESOURCE_GROUP_0_GPUS:-}" ]]; then
  # "id:1,slots:1": the first group's id.
  if [[ ",${CTEST_RESOURCE_GROUP_0_GPUS%%;*}," =~ ,id:([0-9]{1,6}), ]]; then
    ctest_gpu_id=${BASH_REMATCH[1]}
  else
    echo "ctest_gpu.sh: CTEST_RESOURCE_GROUP_0_GPUS='$CTEST_RESOURCE_GROUP_0_GPUS' has no GPU index" >&2
    return 1
  fi
  if [[ -n "${CUDA_VISIBLE_DEVICES:-}" ]]; then
    IFS=, read -r -a ctest_gpu_visible <<<"$CUDA_VISIBLE_DEVICES"
    if ((10#$ctest_gpu_id >= ${#ctest_gpu_visible[@]})); then
      echo "ctest_gpu.sh: GPU $ctest_gpu_id is not in CUDA_VISIBLE_DEVICES='$CUDA_VISIBLE_DEVICES'" >&2
      return 1
    fi
    ctest_gpu_id=${ctest_gpu_visible[10#$ctest_gpu_id]}
  fi
  export CUDA_VISIBLE_DEVICES=$ctest_gpu_id
  echo "running on the GPU CTest allocated: CUDA_VISIBLE_DEVICES=$ctest_gpu_id"
  unset CTEST_RESOURCE_GROUP_0_GPUS CTEST_RESOURCE_GROUP_0 CTEST_RESOURCE_GROUP_COUNT
fi
