#pragma once

#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "collector/prometheus_client.h"
#include "collector/refresher.h"
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
                               {"NETSCORE_PROMETHEUS_TIMEOUT", "5s"},
                               {"NETSCORE_PROMETHEUS_CONNECT_TIMEOUT", "1s"},
                               {"NETSCORE_PROMETHEUS_RETRIES", "0"}});
  config.query.mode = mode;
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

inline collector::Refresher::BackoffWait no_wait() {
  return [](std::chrono::milliseconds) { return true; };
}

}  // namespace netscore::testing
