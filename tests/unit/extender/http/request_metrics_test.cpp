#include "extender/http/request_metrics.h"

#include <gtest/gtest.h>

#include <string>

namespace netscore::extender {
namespace {

std::string scrape(const ServerMetrics& metrics) {
  MetricFamilies families;
  metrics.collect(families);
  metrics.collect_missing_lookups(families);
  std::string out;
  write_prometheus_text(families, out);
  return out;
}

TEST(RequestMetricsTest, SumsEveryThreadsSlot) {
  ServerMetrics metrics(2);
  metrics.record(0, Verb::prioritize, 200, 15'000);
  metrics.record(1, Verb::prioritize, 200, 3'000'000);
  metrics.record(1, Verb::filter, 999, 1);  // an unlisted code counts as 500
  metrics.count_missing_lookups(0, 2);
  metrics.count_missing_lookups(1, 3);
  const std::string out = scrape(metrics);
  EXPECT_NE(out.find("netscore_extender_requests_total{verb=\"prioritize\",code=\"200\"} 2\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("netscore_extender_requests_total{verb=\"filter\",code=\"500\"} 1\n"),
            std::string::npos);
  EXPECT_NE(out.find("netscore_extender_request_duration_seconds_bucket{verb=\"prioritize\","
                     "le=\"2e-05\"} 1\n"),
            std::string::npos);
  EXPECT_NE(out.find("netscore_extender_request_duration_seconds_bucket{verb=\"prioritize\","
                     "le=\"+Inf\"} 2\n"),
            std::string::npos);
  EXPECT_NE(out.find("netscore_extender_request_duration_seconds_count{verb=\"healthz\"} 0\n"),
            std::string::npos);
  EXPECT_NE(out.find("\nnetscore_extender_missing_node_lookups_total 5\n"), std::string::npos);
  EXPECT_EQ(metrics.missing_lookups(), 5U);
}

}  // namespace
}  // namespace netscore::extender
