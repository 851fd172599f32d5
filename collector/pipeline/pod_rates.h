#pragma once

// What a read of the traffic per pod gives for one pod, shared by the read of every pod
// (pod_traffic.h) and the recent pods' read (recent_pod_traffic.h).
namespace netscore::collector {

// A pod's bytes/s over the window; a direction the answer had no series of is not valid.
struct PodRates {
  double receive = 0;
  double transmit = 0;
  bool receive_valid = false;
  bool transmit_valid = false;
};

}  // namespace netscore::collector
