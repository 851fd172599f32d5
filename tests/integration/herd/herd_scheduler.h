#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "tests/support/herd_model.h"

// A test client playing kube-scheduler v1.26's loop for one pod at a time against a running
// netscore-extender (nodeCacheCapable: true, weight 3 as shipped): filter, prioritize, add the
// default plugins and pick the host as the closed-loop simulators' kube-scheduler model does
// (tests/support/scheduler_model.h; the pods have no owner, so no topology spread; ties at
// random from a fixed seed), bind. Not thread-safe: one loop per owner.
namespace netscore::testing::herd {

struct ClusterApi {
  // Creates the pending pod (name, in namespace default).
  std::function<void(const std::string& pod)> create;
  // POSTs the binding; false when the API server did not answer 201.
  std::function<bool(const std::string& pod, const std::string& node)> bind;
  // Blocks (bounded) until the extender's view shows the binding: `placed` of the test's pods are
  // now on `node`. False when it never did.
  std::function<bool(const std::string& node, unsigned placed)> wait_visible;
};

struct BurstResult {
  std::vector<unsigned> placed;         // new pods per node, in Cluster::names order
  std::vector<std::size_t> order;       // node index of each pod, in scheduling order
  std::vector<std::string> prioritize;  // the extender's answer for each pod, for failure messages
  std::string error;                    // empty when every pod was placed
};

// Schedules `pods` identical pods herd-000, herd-001, ... one after the other.
BurstResult schedule_burst(const std::string& extender_base, const Cluster& cluster,
                           const ClusterApi& api, unsigned pods);

}  // namespace netscore::testing::herd
