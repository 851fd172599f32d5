#pragma once

#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "collector/pipeline/measure.h"
#include "collector/pipeline/publisher.h"
#include "collector/prometheus/prometheus_client.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/table/score_table_reader.h"
#include "common/table/score_table_writer.h"
#include "tests/support/table_name.h"

// Shared by the collector integration tests: a collector configuration pointed at a URL, a
// uniquely named table removed afterwards, and reads of what was published.
namespace netscore::testing {

// The seed's function (sum_over_time): these tests pin the original plugin's exact values; the
// default (rate) has its own exactness test.
inline Config collector_config(const std::string& url, QueryMode mode = QueryMode::label) {
  Config config = load_config(Component::collector, {},
                              {{"NETSCORE_PROMETHEUS_URL", url},
                               {"NETSCORE_QUERY_FUNCTION", "sum_over_time"},
                               {"NETSCORE_INTERFACE", "eth0"},
                               {"NETSCORE_TIME_RANGE", "5m"},
                               {"NETSCORE_PROMETHEUS_TIMEOUT", "5s"}});
  config.query.mode = mode;
  // One attempt: a test's fake answers once per request it expects.
  config.prometheus.retries = 0;
  return config;
}

class TableFixture {
 public:
  explicit TableFixture(const std::string& what)
      : name_(what), writer_({.name = name_, .capacity = 1024}) {}

  ScoreTableWriter& writer() { return writer_; }

  std::vector<TableRow> rows(shm::SnapshotMeta& meta) const {
    ScoreTableReader reader({name_});
    std::vector<TableRow> out;
    EXPECT_EQ(reader.read_all(out, meta), ReadStatus::ok);
    return out;
  }
  shm::CollectorStatus status() const {
    ScoreTableReader reader({name_});
    shm::CollectorStatus s{};
    EXPECT_EQ(reader.read_status(s), ReadStatus::ok);
    return s;
  }
  const std::string& name() const { return name_.str(); }

 private:
  TableName name_;
  ScoreTableWriter writer_;
};

inline collector::Measurer::BackoffWait no_wait() {
  return [](std::chrono::milliseconds) { return true; };
}

// One refresh as the refresh loop makes it: measure, then hand the measurement to the publisher
// (no cluster watched).
class Refresh {
 public:
  // `clock`: when the questions asked apart are due (a test advances it instead of waiting).
  Refresh(const Config& config, collector::PrometheusClient& client, ScoreTableWriter& writer,
          MonoClockMs clock = mono_now_ms)
      : measurer_(config, client,
                  {.retries = config.prometheus.retries, .clock = std::move(clock)}),
        publisher_(collector::Publisher::options(config, client.redacted_url()), writer) {}

  collector::Measurement refresh(std::int64_t eval_time_ms,
                                 const collector::Measurer::BackoffWait& wait) {
    collector::Measurement m = measurer_.measure(eval_time_ms, wait);
    publisher_.publish(m);
    return m;
  }

 private:
  collector::Measurer measurer_;
  collector::Publisher publisher_;
};

}  // namespace netscore::testing
