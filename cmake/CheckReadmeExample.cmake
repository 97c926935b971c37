# cmake -D README=<README.md> -D EXAMPLE=<examples/kernels/my_scale.cu> -P CheckReadmeExample.cmake
# Fails unless the README's "Add a kernel" file is, byte for byte, the example project's kernel
# file: what CI builds as a consumer is what the README tells a person to write.
file(READ "${README}" readme)
file(READ "${EXAMPLE}" example)
set(marker "1. Create `kernels/my_scale.cu`:")
string(FIND "${readme}" "${marker}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${README} has no \"${marker}\" step")
endif()
string(SUBSTRING "${readme}" ${at} -1 readme)
string(FIND "${readme}" "   ```cpp\n" start)
string(SUBSTRING "${readme}" ${start} -1 readme)
string(LENGTH "   ```cpp\n" fence)
string(SUBSTRING "${readme}" ${fence} -1 readme)
string(FIND "${readme}" "   ```\n" end)
string(SUBSTRING "${readme}" 0 ${end} block)
# The block is indented by three spaces inside its list item.
string(REPLACE "\n   " "\n" block "\n${block}")
string(SUBSTRING "${block}" 1 -1 block)
if(NOT block STREQUAL example)
  file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/readme_my_scale.cu" "${block}")
  message(FATAL_ERROR "The README's kernels/my_scale.cu differs from ${EXAMPLE}; compare with "
                      "${CMAKE_CURRENT_BINARY_DIR}/readme_my_scale.cu and make them the same.")
endif()
message(STATUS "The README's kernels/my_scale.cu is ${EXAMPLE}")
