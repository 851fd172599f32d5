# Soak: real Prometheus + collector + extender under keep-alive load (scripts/soak.sh); not run by ctest.
add_executable(netscore_soak
  ${CMAKE_CURRENT_LIST_DIR}/soak.cpp
  ${CMAKE_CURRENT_LIST_DIR}/soak_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/soak_traffic.cpp)
target_link_libraries(netscore_soak PRIVATE
  netscore::common netscore::test_support netscore::flags netscore::rapidjson Boost::headers
  CURL::libcurl Threads::Threads
  netscore::warnings)
