add_executable(score_table_bench ${CMAKE_CURRENT_LIST_DIR}/score_table_bench.cpp)
target_link_libraries(score_table_bench PRIVATE netscore::common netscore::test_support benchmark::benchmark_main netscore::warnings)
