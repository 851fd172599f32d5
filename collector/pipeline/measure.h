#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collector/pipeline/pod_traffic.h"
#include "collector/pipeline/query_plan.h"
#include "collector/prometheus/diagnosis.h"
#include "collector/prometheus/prometheus_api.h"
#include "collector/prometheus/prometheus_client.h"
#include "collector/prometheus/query_builder.h"
#include "collector/prometheus/response_parser.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/model/inputs.h"
#include "common/model/rebalance.h"

namespace netscore::collector {

// The refresh's answer about the nodes, and what became of each series in it.
struct NodeAnswer {
  bool queried = false;   // Prometheus answered every request with a success status
  bool answered = false;  // ... with a well-formed vector answer
  std::vector<model::NodeSample> samples{};  // the usable series, one per node name
  std::uint32_t series = 0;                  // series in the answer
  std::uint32_t skipped = 0;                 // series not usable, for any of the reasons below
  std::uint32_t missing_label = 0;
  std::uint32_t duplicate_node = 0;
  std::uint32_t not_a_number = 0;
  NameFilter rejected{};                // series whose node name can never be a Kubernetes node's
  std::string rejected_names{};         // describe_rejected_names(); empty when none
  std::vector<std::string> warnings{};  // Prometheus' own
};

// When the refresh ran, and what its query cost in requests.
struct RefreshTiming {
  unsigned attempts = 0;  // requests to Prometheus for the refresh's query, retries included
  std::int64_t started_wall_ms = 0;
  std::int64_t finished_wall_ms = 0;
  std::int64_t finished_mono_ns = 0;
  std::int64_t duration_us = 0;
};

// Why an answer was unusable, worked out by asking Prometheus more (see Measurer::DiagnoseWhen).
struct DiagnosisReport {
  std::optional<Diagnosis> findings{};  // empty when not asked
  // The status' new diagnosis text; empty optional: this measurement says nothing new (the
  // query failed, or a failing streak was already diagnosed), so the last one stays.
  std::optional<std::string> status{};
};

// With NETSCORE_REBALANCE_LABEL, the link load the descheduler's figure is computed from
// (build_link_load_query of rebalance_query_config; above 1 where counted above the speed), in
// model::figure_direction: for the relative figure with direction max, both directions are read
// and the one with the larger mean kept, as the recording rules choose it.
struct RebalanceRead {
  // Per node, after a read that succeeded; null when off or when it failed (`error` says why).
  std::shared_ptr<const model::LinkLoads> utilisation{};
  std::string error{};
  // What the reading lacks: the measured nodes with a link speed it has no value for (a window that
  // holds fewer than two scrapes, most likely), named; empty when none.
  std::string missing{};
};

// What one refresh found: the value the refresh loop hands to the publisher and `--check` prints.
// Nothing in it has been published or logged. The node answer decides `ok`; the other parts are
// what the refresh's side reads found, each in a part of its own.
struct Measurement {
  bool ok = false;       // the answer has usable series; the table can be published
  bool stopped = false;  // PrometheusClient::abort() interrupted it: it says nothing
  std::string error{};   // why it failed; empty on success
  std::int64_t eval_time_ms = 0;
  NodeAnswer nodes{};
  RefreshTiming timing{};
  DiagnosisReport diagnosis{};
  PlanReport plan{};
  PodTrafficReads pod_traffic{};
  RebalanceRead rebalance{};
};

// Asks the refresh's query once per measure() with PrometheusApi's bounded retries, parses the
// answer and keeps what names a node. What rarely changes is asked apart, when due: which requests
// a refresh makes is decided once at its start (RefreshPlan), and the side reads add their
// findings to the measurement without reaching back into it. Not thread-safe: one thread owns it;
// PrometheusClient::abort() may stop it from any thread.
class Measurer {
 public:
  using BackoffWait = PrometheusApi::BackoffWait;

  enum class DiagnoseWhen {
    // The refresh loop: once per failing streak of well-formed answers without usable series.
    first_unusable_answer,
    // `--check`: whenever a well-formed answer has no usable series or skips some.
    incomplete_answer,
  };

  struct Options {
    unsigned retries = 0;
    DiagnoseWhen diagnose = DiagnoseWhen::first_unusable_answer;
    std::chrono::milliseconds backoff_base{200};
    // When the questions asked apart are due (QueryPlan, PodTrafficReader).
    MonoClockMs clock = mono_now_ms;
    // The watched pods: those placed since the last read of every pod's traffic are read by name
    // every refresh. Null: no cluster watched, none.
    const ClusterState* cluster = nullptr;
  };

  // The refresh loop's: the configured retries.
  Measurer(const Config& config, PrometheusClient& client);
  Measurer(const Config& config, PrometheusClient& client, Options options);

  Measurement measure(std::int64_t eval_time_ms, const BackoffWait& wait);

  const BuiltQuery& query() const { return plan_.batch(); }
  // What the side questions found of the layout (the default before the first measure()).
  const QueryShape& shape() const { return plan_.shape(); }
  // Requests for the traffic per pod since start; all zero when it is off.
  PodTrafficReader::Counts pod_traffic_counts() const {
    return pod_traffic_ ? pod_traffic_->counts() : PodTrafficReader::Counts{};
  }

 private:
  // Which requests this refresh makes beyond its own query, decided once at its start.
  struct RefreshPlan {
    QueryPlan::Due side{};
    std::optional<PodTrafficReader::Due> pods{};  // with NETSCORE_POD_TRAFFIC
    bool rebalance = false;  // with NETSCORE_REBALANCE_LABEL, after a read that succeeded
  };

  RefreshPlan plan_refresh() const;
  // The refresh's requests, one after another so that Prometheus evaluates one at a time, and
  // their answers parsed; nullopt, with the failed request's error in `failure`, when one failed.
  std::optional<ParsedVector> ask_batch(std::int64_t eval_time_ms, const BackoffWait& wait,
                                        Measurement& m, std::string& failure);
  void parse(ParsedVector parsed, Measurement& m) const;
  // The reads beside the node figures, each with its own failures: none fails the measurement.
  void read_sides(const RefreshPlan& plan, std::int64_t node_read_ms, Measurement& m);
  void diagnose_if_due(Measurement& m);
  // One attempt, asked again at the next refresh when it fails; `samples`: the nodes measured.
  RebalanceRead read_rebalance_utilisation(std::int64_t eval_time_ms,
                                           const std::vector<model::NodeSample>& samples);
  // The load per node in `direction`; nullopt with `error` set when it could not be read.
  std::optional<model::NodeUtilisation> read_link_load(Direction direction,
                                                       std::int64_t eval_time_ms,
                                                       std::string& error);

  PrometheusClient& client_;
  PrometheusApi api_;
  QueryPlan plan_;
  std::optional<PodTrafficReader> pod_traffic_;
  QueryConfig query_config_;
  std::optional<QueryConfig> rebalance_query_;  // with NETSCORE_REBALANCE_LABEL
  RebalanceFigure rebalance_figure_;
  Options options_;
  bool diagnosed_ = false;  // the current failing streak has been diagnosed
};

}  // namespace netscore::collector
