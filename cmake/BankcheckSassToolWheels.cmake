# _bankcheck_sass_wheel_bins(<variable>): the bin folders of NVIDIA's wheels (nvidia/cu*/bin, where
# nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm put the tools) in the active virtual environment
# (VIRTUAL_ENV) and in the site-packages folders of the python3 on PATH. Where configure looks for the
# emulated tests' SASS tools (BankcheckKernelSuite.cmake), and where ctest looks again each time it
# reads the tests of a build whose configure found them missing (BankcheckDiscoverTopics.cmake), so
# that tools installed after the build are found without configuring again.
function(_bankcheck_sass_wheel_bins out)
  set(bins "")
  if(DEFINED ENV{VIRTUAL_ENV})
    file(GLOB venv_bins LIST_DIRECTORIES true "$ENV{VIRTUAL_ENV}/lib/python3*/site-packages/nvidia/cu*/bin")
    list(APPEND bins ${venv_bins})
  endif()
  execute_process(
    COMMAND python3 -c
            "import glob, site, sysconfig; d=[sysconfig.get_paths()['purelib'], site.getusersitepackages()]; print(';'.join(sorted(set(b for p in d for b in glob.glob(p + '/nvidia/cu*/bin')))))"
    OUTPUT_VARIABLE python_bins OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE result TIMEOUT 30)
  if(result EQUAL 0)
    list(APPEND bins ${python_bins})
  endif()
  set(${out} "${bins}" PARENT_SCOPE)
endfunction()
