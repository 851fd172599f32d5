#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// One run of the scale benchmark: a fresh control plane with `nodes` fake Ready nodes and a
// backlog of pending pods created while no kube-scheduler runs, then kube-scheduler started alone
// or with netscore (the real collector and extender, the project's defaults scaled 15×, against a
// real Prometheus holding those nodes' node-exporter series), until every pod is bound.
namespace netscore::sim {

enum class ScaleMode {
  alone,
  // The extender without a table (no collector, no Prometheus): it parses every call and answers
  // every node the same neutral score, so placements are kube-scheduler's own. What calling an
  // HTTP extender costs kube-scheduler whatever the extender knows: the floor under netscore.
  floor,
  netscore,
};
std::string_view mode_name(ScaleMode mode);

struct ScaleRunOptions {
  std::string kube_bin;
  std::string deploy_dir;
  std::string collector_binary;
  std::string extender_binary;
  unsigned nodes = 1000;
  unsigned pods = 500;
  double replicaset_share = 0.9;  // the rest have no owner
  unsigned per_replicaset = 10;
  unsigned threads = 8;    // concurrent API requests while creating objects
  double timeout_s = 600;  // for every pod to be bound
  double quiet_s = 10;     // netscore idle before kube-scheduler starts: CPU per refresh
  // The project's defaults divided by this, as the real-time closed loop scales them: at 15 the
  // 15 s refresh and 5 m window become 1 s and 20 s (15 times the refreshes per pod); at 1 they
  // are as shipped (then `quiet_s` must span a refresh).
  double time_scale = 15;
  // kube-scheduler's client qps and burst; without, the shipped configuration's (its defaults,
  // 50 and 100), which pace the bindings at ~62 pods/s whatever else costs.
  std::optional<unsigned> scheduler_qps{};
};

struct LatencyQuantiles {
  std::optional<double> p50, p99;  // seconds
};

struct ScaleRunResult {
  ScaleMode mode = ScaleMode::alone;
  unsigned bound = 0;
  double first_to_last_s = 0;  // the watch seeing the first binding to seeing the last
  double pods_per_s = 0;       // (bound - 1) / first_to_last_s
  // kube-scheduler's own histograms: one scheduling attempt (algorithm, extender included, and
  // binding), the algorithm alone, and the pod's time from entering the queue to bound.
  LatencyQuantiles attempt, algorithm, queued;
  // Exact, from the watch: each pod's binding after the first one (the backlog's drain order).
  LatencyQuantiles since_first;
  // CPU seconds each process spent from the first binding to the last, by comm name, and the
  // same in milliseconds per pod bound.
  std::map<std::string, double> cpu_s, cpu_ms_per_pod;
  std::optional<double> load_1m;  // the machine's load average as the backlog started draining
  // netscore only (the extender's figures also for the floor).
  double collector_cpu_ms_per_refresh = 0;   // while idle, before kube-scheduler starts
  double prometheus_cpu_ms_per_refresh = 0;  // the same window
  double refreshes_per_s = 0;                // the same window
  long collector_peak_rss_kb = 0;
  long extender_peak_rss_kb = 0;
  double prioritize_answered = 0;
  // The extender's own time per /prioritize (its request_duration histogram): against the
  // algorithm's growth, what the round trip costs beyond the extender's work.
  LatencyQuantiles extender_server;
  // The extender's side of its connections once every pod is bound: kube-scheduler's client
  // keeps one alive when established stays small and no TIME_WAIT piles up.
  unsigned extender_established = 0;
  unsigned extender_time_wait = 0;
};

// Throws std::runtime_error when a part does not start or pods remain unbound at the timeout.
ScaleRunResult run_scale(const ScaleRunOptions& options, ScaleMode mode,
                         const std::string& prometheus_url);

}  // namespace netscore::sim
