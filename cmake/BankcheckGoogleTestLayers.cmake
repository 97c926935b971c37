# bankcheck's GoogleTest-facing layers, built from source in whichever build uses them, with that
# build's own GoogleTest (GTest::gtest, GTest::gmock): bankcheck's tree and FetchContent call
# bankcheck_add_gtest_layers() on framework/, an installed package (bankcheckConfig.cmake) on the
# sources `cmake --install` put beside it. GoogleTest keeps no ABI between releases (1.14 made
# Test::RecordProperty(key, int) an inline template, so objects compiled against 1.12 that called it
# no longer linked; internal functions that TEST() and RegisterTest expand to, and its classes, may
# change in any release), so no compiled object that includes a GoogleTest header is ever installed: a project builds these with
# whatever GoogleTest it has, 1.11 or newer. The layers below them (bankcheck::core, ::cuda,
# ::emulate, ::emulated_runtime) include no GoogleTest header and are installed compiled; the ctest
# bankcheck_gtest_abi checks that they refer to nothing of GoogleTest.
#   bankcheck::testing            testing/: the environment that sets the counter session up, held results
#   bankcheck::gtest_main         testing/: main() of GPU test programs
#   bankcheck::suite              suite/: what a kernel suite's programs are made of
#   bankcheck::kernel_suite_main  suite/: main() and the test of every registered case (the GPU program)
#   bankcheck::annotation_checks  suite/: main() and the CPU checks of annotations and baseline files

# Each layer's sources, relative to framework/ (BANKCHECK_GTEST_LAYER_<layer>), and the folders of
# the internal headers they include, installed with them, never on a user's include path.
set(BANKCHECK_GTEST_LAYERS testing gtest_main suite kernel_suite_main annotation_checks)
set(BANKCHECK_GTEST_LAYER_testing testing/testing.cc testing/held_results.cc)
set(BANKCHECK_GTEST_LAYER_gtest_main testing/gtest_main.cc)
set(BANKCHECK_GTEST_LAYER_suite suite/record_command.cc suite/case_runner.cc suite/emulated_case.cc
                                suite/suite_runner.cc suite/case_supervisor.cc suite/suite_settings.cc)
set(BANKCHECK_GTEST_LAYER_kernel_suite_main suite/kernel_suite_main.cc suite/case_checks.cc)
set(BANKCHECK_GTEST_LAYER_annotation_checks suite/annotation_main.cc suite/annotation_checks.cc)
# The core's headers for bankcheck's own layers are at the top of its rooms' folders (their internal/
# folders only the core includes, framework/core/CMakeLists.txt).
set(BANKCHECK_GTEST_LAYER_HEADER_DIRS core/records core/model core/baselines core/reports core/annotations
                                      core/platform core/nvdisasm cuda/internal testing/internal suite/internal)

# bankcheck_add_gtest_layers(<framework folder>): the targets above, on bankcheck::cuda (a target
# already) and the build's GoogleTest. bankcheck::kernel_suite_main and ::annotation_checks are
# OBJECT libraries: their objects are linked whole, main() and the tests it registers among them
# (the annotation checks' main touches no GPU: bankcheck::gtest_main's sets CUPTI up first).
function(bankcheck_add_gtest_layers dir)
  foreach(layer IN LISTS BANKCHECK_GTEST_LAYERS)
    set(sources ${BANKCHECK_GTEST_LAYER_${layer}})
    list(TRANSFORM sources PREPEND "${dir}/")
    if(layer MATCHES "^(kernel_suite_main|annotation_checks)$")
      add_library(bankcheck_${layer} OBJECT ${sources})
    else()
      add_library(bankcheck_${layer} STATIC ${sources})
    endif()
    add_library(bankcheck::${layer} ALIAS bankcheck_${layer})
    # Layers' internal headers by layer path ("suite/internal/case_runner.h"); none reaches users.
    target_include_directories(bankcheck_${layer} PRIVATE "${dir}")
  endforeach()
  target_link_libraries(bankcheck_testing PUBLIC bankcheck::cuda GTest::gmock GTest::gtest)
  foreach(layer gtest_main suite)
    target_link_libraries(bankcheck_${layer} PUBLIC bankcheck_testing)
  endforeach()
  foreach(layer kernel_suite_main annotation_checks)
    target_link_libraries(bankcheck_${layer} PUBLIC bankcheck_suite)
  endforeach()
endfunction()
