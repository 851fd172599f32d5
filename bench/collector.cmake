# Collector benchmark: per-node queries (the Go plugin) vs one batched refresh, and a refresh's
# evaluation cost (counters and recording rules) against the seed's batched query, on real
# Prometheus instances started by the benchmark.
add_executable(collector_bench ${CMAKE_CURRENT_LIST_DIR}/collector_bench.cpp)
target_link_libraries(collector_bench PRIVATE netscore::collector netscore::test_support
  netscore::rapidjson benchmark::benchmark netscore::warnings)

# Kubernetes watcher at cluster scale, against the in-process fake API server.
add_executable(watcher_bench ${CMAKE_CURRENT_LIST_DIR}/watcher_bench.cpp)
target_link_libraries(watcher_bench PRIVATE netscore::collector netscore::test_support netscore::rapidjson
  benchmark::benchmark netscore::warnings)

# The whole path at 1,000 to 10,000 nodes: refresh answer parsed, published, prioritize answered.
add_executable(path_bench ${CMAKE_CURRENT_LIST_DIR}/path_bench.cpp)
target_link_libraries(path_bench PRIVATE netscore::collector netscore::extender
  netscore::test_support benchmark::benchmark netscore::warnings)

# The traffic per pod's reads against the refresh's own query at 5,000 nodes x 30 pods, on a real
# Prometheus started by the benchmark.
add_executable(pod_traffic_bench ${CMAKE_CURRENT_LIST_DIR}/pod_traffic_bench.cpp)
target_link_libraries(pod_traffic_bench PRIVATE netscore::collector netscore::test_support
  netscore::rapidjson benchmark::benchmark netscore::warnings)
