#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "bench/closed_loop/placement/policy.h"
#include "common/config.h"
#include "tests/support/binary_process.h"
#include "tests/support/scratch_table.h"

// netscore-collector and netscore-extender as a cluster runs them, on one scratch table, for the
// real-time closed loop: started for netscore policies, stopped by PID (the extender first) before
// Prometheus and the API server they talk to go away. Not thread-safe.
namespace netscore::sim {

struct RealtimeBinaries {
  std::string collector;
  std::string extender;
  // Where each policy's collector and extender logs are kept (POLICY-collector.log,
  // POLICY-extender.log, appended); empty: in temporary files, removed with the processes.
  std::string log_dir{};
};

// The collector's environment for a policy: its settings, its refresh, window and the rebalance's
// window and rest divided by the time scale, the exporter's interface, the Prometheus URL, then
// `extra` (the NETSCORE_KUBE_* settings that reach the API server, the Prometheus CA).
Environment collector_environment(const Policy& policy, double time_scale,
                                  const std::string& prometheus_url, const Environment& extra);

// What `netscore-collector --print-rules` prints with this environment (its log: stdout and
// stderr); throws std::runtime_error with it when it does not exit 0.
std::string print_rules(const RealtimeBinaries& binaries, const Environment& env);

class NetscoreProcesses {
 public:
  // `extra_env`: as collector_environment's `extra`. Returns once every node
  // is measured and the collector's watch has synced; throws std::runtime_error with both logs'
  // tails when that does not happen.
  NetscoreProcesses(const RealtimeBinaries& binaries, const Policy& policy, double time_scale,
                    const std::string& prometheus_url, const Environment& extra_env,
                    std::size_t nodes);
  ~NetscoreProcesses();
  NetscoreProcesses(const NetscoreProcesses&) = delete;
  NetscoreProcesses& operator=(const NetscoreProcesses&) = delete;

  const std::string& url() const { return url_; }

  // What a real kube-scheduler got from the extender and whether the collector's watch is synced
  // (its /metrics and /table), for the run's report.
  struct Observed {
    double prioritize_answered = 0;  // 200 answers to /prioritize
    bool cluster_synced = false;
  };
  Observed observe() const;

 private:
  testing::ScratchTable table_{"realtime"};  // outlives both processes
  std::optional<testing::BinaryProcess> collector_, extender_;
  std::string url_;
};

}  // namespace netscore::sim
