# Extender benchmarks: Google Benchmark for the handlers, a loopback load tool for the server.
add_executable(extender_bench ${CMAKE_CURRENT_LIST_DIR}/extender_bench.cpp)
target_link_libraries(extender_bench PRIVATE netscore::extender netscore::test_support benchmark::benchmark netscore::warnings)

add_executable(extender_load ${CMAKE_CURRENT_LIST_DIR}/extender_load.cpp)
target_link_libraries(extender_load PRIVATE netscore::extender netscore::test_support netscore::flags
  netscore::prometheus_text netscore::warnings)
