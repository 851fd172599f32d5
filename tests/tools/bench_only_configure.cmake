# cmake -DSOURCE=<tree> -DBINARY=<dir> -P bench_only_configure.cmake
# Configures the tree with the tests off and the benchmarks on (what a benchmark-only machine
# does) and checks that every benchmark target is generated: the benchmarks need the test support
# library, which must not depend on the test suite being configured. Configure only, so it is quick.
file(REMOVE_RECURSE "${BINARY}")
execute_process(
  COMMAND "${CMAKE_COMMAND}" -S "${SOURCE}" -B "${BINARY}" -G Ninja -DNETSCORE_BUILD_TESTS=OFF -DNETSCORE_BUILD_BENCH=ON
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configure with NETSCORE_BUILD_TESTS=OFF failed:\n${out}\n${err}")
endif()
file(READ "${BINARY}/build.ninja" ninja)
foreach(target micro/collector_bench micro/watcher_bench micro/score_table_bench
    micro/extender_bench micro/path_bench micro/model_bench soak/netscore_soak closed_loop/netscore-scale-realtime)
  if(NOT ninja MATCHES "\nbuild bench/${target}:")
    message(FATAL_ERROR "benchmark target ${target} is missing with NETSCORE_BUILD_TESTS=OFF")
  endif()
endforeach()
file(REMOVE_RECURSE "${BINARY}")
