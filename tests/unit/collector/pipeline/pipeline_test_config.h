#pragma once

#include <string>

#include "common/config.h"

// The collector configuration the pipeline's unit tests share: the fake Prometheus at `url`,
// label mode on eth0 with the seed's scoring (sum_over_time of received bytes), and short timeouts.
// The fake answers every request alike, so the traffic per pod, whose requests pod_traffic_test
// covers, is off: the requests counted are the node figures'.
namespace netscore::collector {

inline Config pipeline_test_config(const std::string& url, unsigned retries) {
  Config config = load_config(Component::collector, {},
                              {{"NETSCORE_PROMETHEUS_URL", url},
                               {"NETSCORE_QUERY_FUNCTION", "sum_over_time"},
                               {"NETSCORE_SCORE_BASIS", "raw"},
                               {"NETSCORE_DIRECTION", "receive"},
                               {"NETSCORE_NODE_LABEL", "kubernetes_node"},
                               {"NETSCORE_INTERFACE", "eth0"},
                               {"NETSCORE_PROMETHEUS_TIMEOUT", "5s"},
                               {"NETSCORE_POD_TRAFFIC", "false"}});
  // Fewer than the product's two, or more: the tests count the attempts each makes.
  config.prometheus.retries = retries;
  return config;
}

}  // namespace netscore::collector
