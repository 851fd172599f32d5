# How the test units compile: their precompiled header and, in the optimised default preset, -O0.
#
# Every test unit includes GoogleTest and most GoogleMock, the heaviest headers the project
# parses, so each configuration parses them once and every test binary reuses that PCH. REUSE_FROM
# needs identical compile flags, hence the same warnings and options on the PCH as on the tests,
# and CMake passes -Winvalid-pch, so under NETSCORE_WERROR a mismatch fails the build instead of
# silently parsing again.
#
# The test units only drive the product's libraries, which keep the preset's -O2: what the default
# preset tests is the optimised product. Compiled at -O0 the units cost about 40 % less CPU, and
# GCC 12's -Warray-bounds false positives in std::string, which at -O2 depended on a unit's
# contents and fired with the PCH in a test that compiled cleanly without it, do not arise.
#
# Nothing else is precompiled: with Boost, RapidJSON and spdlog in a shared PCH the same false
# positive fired in product code that compiles cleanly without it.

# GCC only: the fuzz preset (clang, off the CI path) builds no GoogleTest binaries.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(NETSCORE_TEST_PCH ON)
else()
  set(NETSCORE_TEST_PCH OFF)
endif()
add_library(netscore_test_unit_options INTERFACE)
target_compile_options(netscore_test_unit_options INTERFACE
  $<$<CONFIG:RelWithDebInfo,Release>:-O0>)
set(netscore_test_pch_usage GTest::gtest GTest::gmock netscore::warnings netscore_test_unit_options)

# The PCH's own target: an object library that compiles nothing else.
if(NETSCORE_TEST_PCH)
  file(CONFIGURE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/netscore_test_pch.cpp"
    CONTENT "// Compiles the tests' precompiled header only.\n")
  add_library(netscore_test_pch OBJECT "${CMAKE_CURRENT_BINARY_DIR}/netscore_test_pch.cpp")
  target_link_libraries(netscore_test_pch PRIVATE ${netscore_test_pch_usage})
  target_precompile_headers(netscore_test_pch PRIVATE <gmock/gmock.h> <gtest/gtest.h>)
endif()

# netscore_use_test_pch(<target>): a GoogleTest binary compiles as the test units do and reuses
# the tests' PCH.
function(netscore_use_test_pch target)
  target_link_libraries(${target} PRIVATE netscore_test_unit_options)
  if(NETSCORE_TEST_PCH)
    target_link_libraries(${target} PRIVATE ${netscore_test_pch_usage})
    target_precompile_headers(${target} REUSE_FROM netscore_test_pch)
  endif()
endfunction()
