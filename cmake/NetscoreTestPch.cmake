# The test binaries' precompiled header. Every test unit includes GoogleTest and most GoogleMock,
# the heaviest headers the project parses, so each configuration parses them once and every test
# binary reuses that PCH.
#
# REUSE_FROM needs identical compile flags, hence the same warnings on the PCH as on the tests, and
# CMake passes -Winvalid-pch, so under NETSCORE_WERROR a mismatch fails the build instead of
# silently parsing again.
#
# Nothing else is precompiled: with Boost, RapidJSON and spdlog in a shared PCH the same GCC 12
# -O2 false positive (below) fired in product code that compiles cleanly without it.

# GCC only: the fuzz preset (clang, off the CI path) builds no GoogleTest binaries. Debug only
# (asan, tsan, debug: -O1 or less): at -O2 GCC 12's -Warray-bounds false positives in std::string
# depend on the unit's contents, and with the PCH one fired in a test that compiles cleanly
# without it, so the optimised default preset parses GoogleTest per unit as before.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_BUILD_TYPE STREQUAL "Debug")
  set(NETSCORE_TEST_PCH ON)
else()
  set(NETSCORE_TEST_PCH OFF)
endif()
set(netscore_test_pch_usage GTest::gtest GTest::gmock netscore::warnings)

# The PCH's own target: an object library that compiles nothing else.
if(NETSCORE_TEST_PCH)
  file(CONFIGURE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/netscore_test_pch.cpp"
    CONTENT "// Compiles the tests' precompiled header only.\n")
  add_library(netscore_test_pch OBJECT "${CMAKE_CURRENT_BINARY_DIR}/netscore_test_pch.cpp")
  target_link_libraries(netscore_test_pch PRIVATE ${netscore_test_pch_usage})
  target_precompile_headers(netscore_test_pch PRIVATE <gmock/gmock.h> <gtest/gtest.h>)
endif()

# netscore_use_test_pch(<target>): a GoogleTest binary reuses the tests' PCH.
function(netscore_use_test_pch target)
  if(NETSCORE_TEST_PCH)
    target_link_libraries(${target} PRIVATE ${netscore_test_pch_usage})
    target_precompile_headers(${target} REUSE_FROM netscore_test_pch)
  endif()
endfunction()
