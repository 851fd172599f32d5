#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <vector>

// Workload learning (NETSCORE_LEARN_WORKLOADS): what a pod of each workload receives and
// transmits, fitted to the nodes' measured rates, each direction on its own. Each measured node
// is its own background plus, per pod whose traffic the window holds, its workload's traffic per
// pod x the part held. A pod whose rate is annotated is fitted as any other, its workload starting
// from the declaration: a declaration prices the pod (model/placement_ledger) but is a mean, and
// held as an exact part of its node it would charge the pods' own spread to the node's background
// and the other workloads (half the workloads declaring balanced worse than none did). A few
// multiplicative (expectation-maximisation) steps per measurement from the previous fit, over the
// last few measurements together: one measurement has fewer nodes than the workloads and
// backgrounds they hold, and the pods that came, went or moved between measurements are what
// tells them apart. Rates stay non-negative; a background, constant in truth, moves with the
// square root of its node's ratio so that a change on a node is first attributed to the pods that
// came or went. model/pricing.h holds the start split, the step count and how many measurements
// are fitted together.
// Nodes and workloads are the caller's small dense ids. Not thread-safe: one fit at a time, on
// rounds the placement ledger hands out (collector/kube/cluster_state fits them outside the lock
// its watchers write under).
namespace netscore::model {

// One pod whose traffic the window holds, running or gone.
struct HeldPod {
  std::uint32_t node = 0;
  std::uint32_t workload = 0;
  double held = 0;                      // the part of its traffic in the window, 0..1
  double annotated_rate = -1;           // receive bytes/s it is annotated with; < 0: none
  double annotated_transmit_rate = -1;  // transmit bytes/s, the same way
};

struct LearningInput {
  // Per node id: its measured receive rate in bytes/s, finite; < 0: not measured (its pods are
  // left out of that direction's fit).
  std::span<const double> node_rate;
  // Per node id (as many as node_rate): its measured transmit rate, the same way; empty: no
  // node's transmit measured.
  std::span<const double> node_transmit_rate;
  std::span<const HeldPod> pods;
  // Per workload id: its running pods, which weigh it in rate_per_pod().
  std::span<const std::uint32_t> running_pods;
};

class WorkloadLearner {
 public:
  // One fit per direction, O(pods x kLearningMeasurements): call it once per measurement.
  void learn(const LearningInput& input);
  // The learned traffic per pod of a workload; nullopt until kLearnedAfterPodsHeld settled pods'
  // worth of its traffic has been in a window, and again once forgotten.
  std::optional<double> workload_rate(std::uint32_t workload) const {
    return receive_.workload_rate(workload);
  }
  std::optional<double> workload_transmit_rate(std::uint32_t workload) const {
    return transmit_.workload_rate(workload);
  }
  // What a pod of an unknown workload is priced at, receiving (transmitting): the mean traffic of
  // the known workloads' running pods (learned) and of the annotated pods (declared, weighed by
  // the part the window holds) plus kUnknownPodDeviations deviations between them (bytes/s);
  // nullopt before anything was learned or declared.
  std::optional<double> rate_per_pod() const { return receive_.rate_per_pod(); }
  std::optional<double> transmit_rate_per_pod() const { return transmit_.rate_per_pod(); }
  // A workload id no pod refers to any more: the caller may reuse it for another workload.
  void forget_workload(std::uint32_t workload);

 private:
  // One direction's fit: the nodes' rates in it and the pods' annotations in it.
  class Fit {
   public:
    void learn(std::span<const double> node_rate, std::span<const HeldPod> pods,
               double HeldPod::*annotated, std::span<const std::uint32_t> running_pods);
    std::optional<double> workload_rate(std::uint32_t workload) const;
    std::optional<double> rate_per_pod() const { return unknown_pod_rate_; }
    void forget_workload(std::uint32_t workload);

   private:
    struct Workload {
      double rate = 0;  // bytes/s per pod
      bool known = false;
    };
    // A pod of a workload on a measured node, its rate to be fitted.
    struct Term {
      std::uint32_t node, workload;
      double held;
    };
    // What one measurement asks the fit to explain: per node id its rate (< 0: not measured) and
    // the traffic of its pods whose workloads were forgotten since (fixed), and the pods as terms.
    struct Measured {
      std::vector<double> rate, fixed;
      std::vector<Term> terms;
    };
    struct Observation;
    // `terms`: storage for the observation's terms (cleared, its capacity kept).
    static Observation observe(std::span<const double> rate_of, std::span<const HeldPod> pods,
                               double HeldPod::*annotated, std::size_t workloads,
                               std::vector<Term> terms);
    void start(std::span<const double> rate_of, const Observation& seen);
    void update();
    void summarise(const Observation& seen, std::span<const std::uint32_t> running_pods);
    // A workload id given up since the last fit, and the traffic per pod it had then.
    struct Forgotten {
      std::uint32_t workload;
      double rate;
    };
    void fold_forgotten();
    std::deque<Measured> recent_;  // the last kLearningMeasurements, oldest first
    // update()'s sums per node and per workload, kept between fits: at thousands of nodes a fit
    // that allocated them, and each measurement's terms, anew took up to twice as long, by the
    // allocator's state (bench/micro/model_bench).
    struct Sums {
      std::vector<double> predicted, ratio, background_ratio, measured;  // by node
      std::vector<double> gain, weight;                                  // by workload
    };
    Sums sums_;
    std::vector<Forgotten> forgotten_;
    std::vector<Workload> workloads_;  // by workload id
    std::vector<double> background_;   // by node id: bytes/s not explained by pods; < 0 unknown
    // The mean over the known workloads' running pods and the annotated pods.
    std::optional<double> rate_per_pod_;
    std::optional<double> unknown_pod_rate_;  // that mean plus kUnknownPodDeviations deviations
  };
  Fit receive_, transmit_;
};

}  // namespace netscore::model
