# bankcheck_set_warnings(target): the project's warning flags for host (C++) and device (CUDA) code.
# With BANKCHECK_WERROR=ON (CI) every warning is an error, in nvcc's own diagnostics too.
function(bankcheck_set_warnings target)
  set(host_flags -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${host_flags}>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
  if(BANKCHECK_WERROR)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Werror>
      $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Werror>)
  endif()
endfunction()
