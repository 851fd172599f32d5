#pragma once

#include "common/config.h"
#include "common/duration.h"

// The query configuration node-exporter's mixin rules stand for: every device but lo and veth*
// (NETSCORE_INTERFACE='!lo|veth.+' as a regex), rates over 5m, the auto node-label candidates'
// first two. Shared by the side questions' tests.
namespace netscore::collector {

inline QueryConfig physical_interfaces_config() {
  QueryConfig c;
  c.function = QueryFunction::rate;
  c.metric = "node_network_receive_bytes_total";
  c.transmit_metric = "node_network_transmit_bytes_total";
  c.interface = "!lo|veth.+";
  c.interface_regex = true;
  c.time_range = *parse_prom_duration("5m");
  c.node_label = "kubernetes_node";
  c.node_labels = {"kubernetes_node", "instance"};
  return c;
}

}  // namespace netscore::collector
