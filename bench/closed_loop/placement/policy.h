#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.h"
#include "common/model/rebalance.h"

namespace boost::program_options {
class options_description;
}  // namespace boost::program_options

// What a closed-loop run compares and how its loop is paced: the policies (kube-scheduler alone,
// baselines, netscore configurations, oracles) and the loop's parameters, with their flags. The
// same for the virtual-time and the real-time level.
namespace netscore::sim {

enum class PolicyKind {
  scheduler,    // kube-scheduler v1.26's default plugins alone, no extender
  fewest_pods,  // each pod to the node with the fewest pods (the baseline)
  netscore,     // the default plugins plus the extender with `env` on the shipped defaults
  oracle,       // each pod to the node with the least true traffic, bound pods counted at once
  // The oracle knowing only what netscore could know when the pod is created (information-fair):
  // a bound pod counts at its true rates once a pod of its workload (as
  // the collector keys it) was created the collector's recent range before, at its declared rate
  // (WorkloadParams::declared_fraction) or else the trace's mean pod until then.
  informed_oracle,
  // Each pod to the node whose busier link direction has the least utilisation once the pod's
  // true rates are added (bound pods counted at once); nodes without a speed compare bytes.
  utilisation_oracle,
};

struct Policy {
  std::string name;
  PolicyKind kind = PolicyKind::netscore;
  Environment env{};        // NETSCORE_* settings on top of the shipped defaults
  std::int64_t weight = 0;  // extender weight; 0: the shipped scheduler configuration's
};

// The policies a comparison runs: the baselines, the defaults, the defaults without workload
// learning, without burst spreading and at the previous weight, and the oracles.
std::vector<Policy> standard_policies();
// The policies of the heterogeneous scenario (nodes with link speeds): the baselines, the raw and
// the utilisation basis in the receive and the busier direction, and both oracles.
std::vector<Policy> heterogeneous_policies();
// Policies named in a comma-separated list, from the sets above. Names hold commas, so the
// longest name matching at each position is taken. An error message or empty.
std::string select_policies(std::string_view list, std::vector<Policy>& out);
// A netscore policy named after its settings, "NAME=VALUE;NAME=VALUE" on top of the shipped
// defaults. An error message or empty.
std::string add_env_policy(std::string_view settings, std::vector<Policy>& out);
// The policies by name, the lists as the closed-loop commands print them for --help.
std::string policies_help();

// What the cluster measures of each pod's own traffic, as a kubelet's cAdvisor endpoint exports it
// (container_network_{receive,transmit}_bytes_total per pod sandbox, scraped as kube-prometheus
// scrapes it): `cadvisor` with the pod's namespace and name, as kube-prometheus clusters show
// them; `unlabelled` without them, as runtimes that do not fill them; `none`: no such endpoint.
// The real-time exporter serves them; in virtual time they are the simulator's own
// (virtual_time/pod_counters.h).
enum class PodSeries { cadvisor, unlabelled, none };

// "cadvisor", "unlabelled", "none".
std::string_view pod_series_name(PodSeries series);

struct LoopParams {
  double scrape_s = 1;      // Prometheus' scrape interval
  double time_scale = 15;   // the collector's durations are divided by this
  double cycle_s = 0.005;   // one scheduling cycle per pod
  double visible_s = 0.02;  // an API change -> a watch has it (a binding, a deletion, a new pod)
  // What one cluster-driven publish of the table takes; the collector waits this over its busy
  // share before the next (Publisher::cluster_publish_gap): 20 ms at 30 nodes, as measured on
  // the real collector's /table during a churn run.
  double publish_s = 0.0001;
  // Virtual time: what a Prometheus query takes (query_s, plus series_s per series it answers or
  // names), which sets the collector's cadence between reads of every pod. A real collector
  // measures its own: 3-14 ms for the node query, 17-106 ms for every pod's traffic (2 queries,
  // ~470 pods) and 4-21 ms for the recent pods', every pod read every 20-45 refreshes, as its
  // debug log showed in a churn run through the real control plane (30 nodes).
  double query_s = 0.005;
  double series_s = 0.00005;
  double sample_s = 1;  // the balance metrics' step
  double hot_factor = 1.5;
  double hot_utilisation = 0.8;     // a link above this utilisation is hot
  bool topology_spread = true;      // the default PodTopologySpread constraint (ReplicaSets)
  std::int64_t shipped_weight = 3;  // the extender weight of the shipped configuration
  std::uint64_t tie_seed = 7;       // kube-scheduler breaks score ties at random
  PodSeries pod_series = PodSeries::cadvisor;
  // Virtual time only: a model of deploy/overlays/descheduler's descheduler every this many
  // seconds of cluster time (divided by time_scale; 0: none), evicting what netscore's collector
  // nominates under the netscore policies (virtual_time/descheduler_model.h).
  double descheduler_interval_s = 0;
  // Its evictionLimits.node, which the collector's nomination fills: as shipped, the number the
  // collector nominates up to (the overlay's policy says the same; tests/deploy checks it).
  std::uint64_t descheduler_per_node = model::RebalanceSettings{}.per_node;
};

// A flag for every LoopParams member (--scrape-s=1, --topology-spread=false, --pod-series=none,
// ...), writing into `params` once bench/flags has parsed the command line; and their listing for
// --help.
void add_loop_options(boost::program_options::options_description& options, LoopParams& params);
std::string loop_help();

}  // namespace netscore::sim
