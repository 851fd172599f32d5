#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/binary_process.h"
#include "tests/support/eventually.h"
#include "tests/support/http_client.h"
#include "tests/support/prometheus_process.h"
#include "tests/support/table_name.h"

// The real netscore-collector and netscore-extender binaries against a real Prometheus serving
// synthetic node-exporter traffic, for the fault drills and the security checks. One Prometheus
// per test binary (backfilling takes seconds); one shm name per test.
namespace netscore::testing {

using Clock = std::chrono::steady_clock;

// Short enough that a drill waits seconds for a refresh.
inline constexpr const char* kRefreshInterval = "300ms";
// The extenders' max age: beyond any run, so however long a loaded machine stalls the collector,
// a drill meets a stale table only where it asks for one (with NETSCORE_MAX_AGE=kShortMaxAge).
inline constexpr const char* kMaxAge = "1h";
inline constexpr const char* kShortMaxAge = "2s";
inline constexpr std::chrono::seconds kShortMaxAgeValue{2};
inline constexpr std::chrono::seconds kPatience{20};

// A running extender and the address it listens on (NETSCORE_LISTEN port 0, read back from its
// log).
struct Extender {
  std::unique_ptr<BinaryProcess> process;
  std::string base;  // http://127.0.0.1:<port>

  HttpReply get(const std::string& path) const { return http_get(base + path); }
  // /prioritize for the probe nodes.
  HttpReply prioritize() const;
  // /filter for the probe nodes with a pod asking for at most `max_receive_rate` bytes/s.
  HttpReply filter(const std::string& max_receive_rate) const;
};

class DrillTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite();
  static void TearDownTestSuite();

  // NETSCORE_PROMETHEUS_URL, NETSCORE_INTERFACE, NETSCORE_SHM_NAME and the short refresh interval,
  // after `extra`: the config loader keeps the first of duplicate names, so `extra` overrides them.
  std::unique_ptr<BinaryProcess> start_collector(
      std::vector<std::string> extra = {}, std::optional<std::uint64_t> file_size_limit = {}) const;
  // Fails the test (empty base) if the extender does not log its port.
  Extender start_extender(std::vector<std::string> extra = {}) const;

  static std::string prometheus_url() { return prometheus_->url(); }

  TableName shm_{"drill"};

 private:
  static inline std::unique_ptr<PrometheusProcess> prometheus_;
};

// Scores the extender gives the probe nodes when the table is fresh: the idle node gets the best
// score and the busiest probed node the worst (the plugin scores less traffic higher).
::testing::AssertionResult real_scores(const HttpReply& reply);
// Every probe node at the neutral score (5, ExtenderConfig::neutral_score).
::testing::AssertionResult neutral_scores(const HttpReply& reply);

}  // namespace netscore::testing
