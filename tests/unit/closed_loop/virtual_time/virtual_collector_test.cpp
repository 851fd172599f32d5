// The collector in virtual time publishes a watched change as the product's cluster thread does:
// at once after a quiet gap, else once the gap the publish cost sets has passed, one publish for
// every change in between; and it reads every pod as rarely as the queries' modelled costs make
// the product's reader choose. Deterministic.
#include "bench/closed_loop/virtual_time/virtual_collector.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "bench/closed_loop/virtual_time/pod_counters.h"
#include "bench/closed_loop/virtual_time/virtual_clock.h"
#include "collector/pipeline/publisher.h"
#include "common/config.h"
#include "common/model/inputs.h"
#include "tests/support/fake_kube_objects.h"
#include "tests/support/scratch_table.h"

namespace netscore::sim {
namespace {

testing::kube::Pod bound_pod(const std::string& name) {
  return {.ns = "shop", .name = name, .uid = "uid-" + name, .node = "node-a", .phase = "Running"};
}

TEST(VirtualCollectorGap, AChangeWithinTheGapIsPublishedWhenItEnds) {
  const Config config = load_config(Component::collector, {}, {});
  constexpr double kPublish_s = 1e-4;
  const double gap_s = std::chrono::duration<double>(collector::Publisher::cluster_publish_gap(
                                                         std::chrono::microseconds(100),
                                                         collector::Publisher::options(config, {})))
                           .count();
  ASSERT_GT(gap_s, 0);
  VirtualClock clock;
  testing::ScratchTable table("virtual-collector");
  const PodCounters pods(60'000);
  VirtualCollector collector(config, clock, table.str(), pods, false, kPublish_s);
  collector.add_node("node-a");
  collector.refresh(
      {model::NodeSample{.node = "node-a", .value = 1e6, .rate = 1e6, .rate_valid = true}});
  const auto measured = collector.publishes();

  clock.set(1);
  EXPECT_EQ(collector.pod_bound(bound_pod("a")), std::nullopt) << "the leading edge";
  EXPECT_EQ(collector.publishes(), measured + 1);

  clock.set(1 + gap_s / 4);
  const std::optional<double> due = collector.pod_bound(bound_pod("b"));
  ASSERT_TRUE(due.has_value());
  EXPECT_NEAR(*due, 3 * gap_s / 4, 1e-6);
  EXPECT_EQ(collector.pod_deleted("uid-a"), std::nullopt) << "already due";
  EXPECT_EQ(collector.publishes(), measured + 1);

  clock.set(1 + gap_s);
  collector.publish_deferred();
  EXPECT_EQ(collector.publishes(), measured + 2);
  collector.publish_deferred();
  EXPECT_EQ(collector.publishes(), measured + 2) << "nothing left to publish";
}

// The reader weighs the read of every pod against the node query as a real collector measures
// them, here on the costs the loop models: 4 ms a query and 0.25 ms a series.
TEST(VirtualCollectorCosts, EveryPodIsReadAsRarelyAsTheModelledCostsSay) {
  const Config config = load_config(Component::collector, {}, {});
  const std::int64_t refresh_ms = config.refresh_interval.value.count();
  const auto interval_after_first_read = [&](QueryCosts costs) {
    VirtualClock clock;
    testing::ScratchTable table("virtual-collector-costs");
    PodCounters pods(3'600'000);
    for (std::uint32_t pod = 0; pod < 400; ++pod)
      pods.start(pod, "shop/p" + std::to_string(pod), VirtualClock::wall_ms(0), 1e3, 1e3);
    pods.scrape(VirtualClock::wall_ms(0));
    pods.scrape(VirtualClock::wall_ms(10));
    clock.set(10);
    VirtualCollector collector(config, clock, table.str(), pods, true, 1e-4, costs);
    collector.add_node("node-a");
    collector.refresh(
        {model::NodeSample{.node = "node-a", .value = 1e6, .rate = 1e6, .rate_valid = true}});
    const auto reads = collector.pod_traffic();
    EXPECT_TRUE(reads.has_value());
    EXPECT_EQ(reads->every_pod->pods.size(), 400U) << "every pod read at once when found";
    return reads->interval_ms;
  };
  EXPECT_EQ(interval_after_first_read({}), 4 * refresh_ms) << "free queries: the fewest refreshes";
  // The node query: 4 + 0.25 = 4.25 ms, measured as 4. Every pod: two queries of 400 series,
  // 2 * (4 + 100) = 208 ms; with no recent read yet, 208 / 4 = 52 refreshes.
  EXPECT_EQ(interval_after_first_read({.query_ms = 4, .series_ms = 0.25}), 52 * refresh_ms);
}

}  // namespace
}  // namespace netscore::sim
