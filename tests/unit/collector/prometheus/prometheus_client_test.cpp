#include "collector/prometheus/prometheus_client.h"

#include <gtest/gtest.h>

namespace netscore::collector {
namespace {

TEST(RedactUrlTest, HidesUserAndPassword) {
  const std::string redacted = redact_url("https://alice:s3cret@prom.example:9090/prefix");
  EXPECT_EQ(redacted.find("s3cret"), std::string::npos);
  EXPECT_EQ(redacted.find("alice"), std::string::npos);
  EXPECT_EQ(redacted, "https://REDACTED@prom.example:9090/prefix");
}

TEST(RedactUrlTest, LeavesPlainUrlAlone) {
  EXPECT_EQ(redact_url("http://127.0.0.1:9090/"), "http://127.0.0.1:9090/");
  EXPECT_EQ(redact_url("http://[::1"), "<unparsable url>");
}

TEST(PrometheusClientTest, RedactedUrlNeverCarriesTheSecret) {
  PrometheusConfig config;
  config.url = "http://bob:hunter2@127.0.0.1:1/";
  PrometheusClient client({config});
  EXPECT_EQ(client.redacted_url().find("hunter2"), std::string::npos);
}

}  // namespace
}  // namespace netscore::collector
