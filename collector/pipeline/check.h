#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "collector/pipeline/measure.h"
#include "collector/prometheus/prometheus_client.h"
#include "common/config.h"
#include "common/model/inputs.h"

// `netscore-collector --check`: the one-shot doctor an operator runs before deploying. Same
// configuration, query and measurement as the collector; prints the nodes found with their
// values, rates and link speeds, what the link speeds are and how nodes without one are scored,
// the busiest links on the utilisation basis and, when none or only some series are usable, why
// and what to set instead.
namespace netscore::collector {

// The client and measurer of an operator's one-shot command (--check, --print-rules): the
// collector's configuration, one attempt, diagnosed whenever an answer is incomplete.
struct OneShotMeasurer {
  OneShotMeasurer(const Config& config, std::string user_agent);
  Measurement measure(std::int64_t eval_time_ms);

  PrometheusClient client;
  Measurer measurer;
};

// Returns the process exit status: 0 only when the table would be non-empty, 1 otherwise.
// curl_global_init must have run.
int run_check(const Config& config, std::int64_t eval_time_ms, std::ostream& out);

// The report for one measurement made with Measurer::DiagnoseWhen::incomplete_answer, scored as
// the collector would score it; returns the exit status as run_check does.
int print_check(const Measurement& m, const model::ScoringSettings& scoring, std::ostream& out);

// Whether the measurement's traffic per pod is read, its queries, how many pods the last read had
// and how long before the measurement it was evaluated; nothing when NETSCORE_POD_TRAFFIC is off.
void print_pod_traffic(const Measurement& m, std::ostream& out);
// The recent pods' read (recent_pod_traffic.h): how many were asked and answered, or that none
// are without watched pods (`--check`); nothing when NETSCORE_POD_TRAFFIC is off.
void print_recent_pod_traffic(const Measurement& m, std::ostream& out);

}  // namespace netscore::collector
