#include "common/prometheus_names.h"

#include <gtest/gtest.h>

namespace netscore {
namespace {

TEST(PrometheusNamesTest, LabelNames) {
  EXPECT_TRUE(is_prometheus_label_name("kubernetes_node"));
  EXPECT_TRUE(is_prometheus_label_name("_x9"));
  EXPECT_TRUE(is_prometheus_label_name("Z"));
  EXPECT_FALSE(is_prometheus_label_name(""));
  EXPECT_FALSE(is_prometheus_label_name("9x"));
  EXPECT_FALSE(is_prometheus_label_name("a:b"));
  EXPECT_FALSE(is_prometheus_label_name(":a"));
  EXPECT_FALSE(is_prometheus_label_name("a-b"));
  EXPECT_FALSE(is_prometheus_label_name("a b"));
  EXPECT_FALSE(is_prometheus_label_name("node\"}"));
  EXPECT_FALSE(is_prometheus_label_name("n\xc3\xa9"));
}

TEST(PrometheusNamesTest, MetricNamesAlsoAllowColons) {
  EXPECT_TRUE(is_prometheus_metric_name("node_network_receive_bytes_total"));
  EXPECT_TRUE(is_prometheus_metric_name("job:rate5m:sum"));
  EXPECT_TRUE(is_prometheus_metric_name(":leading"));
  EXPECT_TRUE(is_prometheus_metric_name("a9"));
  EXPECT_FALSE(is_prometheus_metric_name(""));
  EXPECT_FALSE(is_prometheus_metric_name("9a"));
  EXPECT_FALSE(is_prometheus_metric_name("a{b}"));
  EXPECT_FALSE(is_prometheus_metric_name("a.b"));
  EXPECT_FALSE(is_prometheus_metric_name(std::string_view("a\0b", 3)));
}

static_assert(is_prometheus_label_name("usable_in_constant_expressions"));

}  // namespace
}  // namespace netscore
