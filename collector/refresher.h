#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "collector/prometheus_client.h"
#include "collector/query_builder.h"
#include "collector/response_parser.h"
#include "common/table/score_table_writer.h"

namespace netscore::collector {

struct RefreshResult {
  bool ok = false;
  std::string error;  // why the refresh failed; empty on success
  std::uint32_t series = 0;
  std::uint32_t skipped = 0;
  std::uint32_t published = 0;
  unsigned attempts = 0;
  std::int64_t duration_us = 0;
};

// One refresh: query Prometheus (bounded retries with backoff), parse, score, publish, and record
// the attempt in the table's status. A failed refresh leaves the last published snapshot alone.
// Not thread-safe: the refresh loop's thread owns it.
class Refresher {
 public:
  // Waits up to the given time between attempts; returns false when the collector is stopping.
  using BackoffWait = std::function<bool(std::chrono::milliseconds)>;

  // With a publisher, a successful refresh hands its samples over (the publisher owns the table's
  // snapshots and merges the cluster's placements) and every attempt's status goes there too.
  struct Sink {
    std::function<void(std::vector<NodeSample> samples, std::int64_t eval_time_ms)> measurement{};
    std::function<void(const shm::CollectorStatus& status)> status{};
  };

  Refresher(const Config& config, PrometheusClient& client, ScoreTableWriter& writer);
  Refresher(const Config& config, PrometheusClient& client, ScoreTableWriter& writer, Sink sink);

  // After PrometheusClient::abort() nothing is recorded and the result's error is "stopped".
  RefreshResult refresh(std::int64_t eval_time_ms, const BackoffWait& wait);

  const BuiltQuery& query() const { return query_; }
  std::uint64_t consecutive_failures() const { return status_.consecutive_failures; }

 private:
  HttpResult query_with_retries(std::int64_t eval_time_ms, const BackoffWait& wait,
                                unsigned& attempts);
  void publish(std::vector<NodeSample> samples, std::int64_t eval_time_ms, RefreshResult& result);
  void record(const RefreshResult& result, std::int64_t started_wall_ms);
  // For a well-formed answer: the status diagnosis says why nothing was usable (worked out once
  // per failing streak) or which series were not node names; otherwise the last one stays.
  void update_diagnosis(const RefreshResult& result, const std::string& rejected_names,
                        std::int64_t eval_time_ms);

  PrometheusClient& client_;
  ScoreTableWriter& writer_;
  BuiltQuery query_;
  QueryConfig query_config_;
  std::string diagnosis_;
  bool diagnosed_ = false;
  std::string logged_rejected_;
  unsigned retries_;
  std::chrono::milliseconds backoff_base_{200};
  shm::CollectorStatus status_{};
  Sink sink_;
};

// An HTTP answer's error text: Prometheus' own error message when the body carries one.
std::string describe_http_failure(const HttpResult& result);

}  // namespace netscore::collector
