// The placement ledger's intake of measured traffic per pod (over the window, and the recent
// read's own rates), the pods placed since a time, and every bound pod with its prices
// (hand-computed cases).
#include "common/model/placement_ledger.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/unit/common/model/placement_ledger_fixtures.h"

namespace netscore::model {
namespace {

TEST(PlacementLedger, APodIsPricedByItsOwnMeasurementThenItsWorkloadsMeasuredMean) {
  PlacementLedger state;
  const auto named = [](const std::string& uid, const std::string& workload) {
    return PodFacts{.uid = uid, .node = "n1", .workload = workload, .name = "shop/" + uid};
  };
  PodFacts annotated = named("own", "shop/Deployment/web");
  annotated.annotated_rate = 50;  // its measurement wins
  annotated.annotated_transmit_rate = 70;
  state.upsert_pod(annotated, kNow);
  PodFacts sibling = named("sibling", "shop/Deployment/web");
  sibling.annotated_rate = 40;  // its workload's measured mean wins
  state.upsert_pod(sibling, kNow);
  state.upsert_pod(named("settled", "shop/Deployment/web"), kLongAgo);
  state.upsert_pod(named("stranger", "shop/Deployment/other"), kNow);
  PodFacts shaped = named("shaped", "shop/Deployment/web");
  shaped.receive_ceiling = 100;
  state.upsert_pod(shaped, kNow);
  // Read half a window after the lag: the window holds half of each pod placed at kNow, and
  // nothing yet of `young`, whose rate over the window says too little.
  const std::int64_t read = kNow + kLagMs + kWindowMs / 2;
  state.upsert_pod(named("young", "shop/Deployment/web"), read);
  const std::vector<MeasuredPod> measured{{.name = "shop/own", .receive = 1000, .transmit = 10},
                                          {.name = "shop/settled", .receive = 3000},
                                          {.name = "shop/young", .receive = 1},
                                          {.name = "shop/gone-long-ago", .receive = 9}};
  state.measure_pods(measured, at(read));
  const std::vector<NodeLoad> n1_loads = state.loads(at(read));
  const NodeLoad& n1 = load_of(n1_loads, "n1");
  EXPECT_EQ(n1.placed, 5U);
  // own: 1000 over the half it held, 2000 B/s; web's mean: (2000 + 3000) / 2 = 2500 for sibling
  // and young; shaped: capped at 100; stranger: nothing known. Missing: half of each, young all.
  EXPECT_DOUBLE_EQ(n1.pending_known, 0.5 * 2000 + 0.5 * 2500 + 0.5 * 100 + 2500);
  EXPECT_DOUBLE_EQ(n1.pending_plain, 0.5);
  EXPECT_EQ(n1.priced_receive.measurement, 1U);
  EXPECT_EQ(n1.priced_receive.workload_measurement, 2U);
  EXPECT_EQ(n1.priced_receive.ceiling, 1U);
  EXPECT_EQ(n1.priced_receive.annotation, 0U);
  // Transmit: own 10 over its half, 20 B/s, alone in web's mean.
  EXPECT_DOUBLE_EQ(n1.pending_transmit_known, 0.5 * 20 + 0.5 * 20 + 0.5 * 20 + 20);
  EXPECT_EQ(n1.priced_transmit.measurement, 1U);
  EXPECT_EQ(n1.priced_transmit.workload_measurement, 3U);

  // A watch update keeps the measurement; a gone pod is taken out at its last, and its last
  // still prices its workload's unmeasured pods while it is known; the next read replaces the
  // running pods' measurements.
  state.upsert_pod(annotated, read);
  EXPECT_EQ(load_of(state.loads(at(read)), "n1").priced_receive.measurement, 1U);
  state.remove_pod("settled", read);
  state.measure_pods(std::vector<MeasuredPod>{}, at(read));
  const std::vector<NodeLoad> later_loads = state.loads(at(read + kLagMs + kWindowMs / 2));
  const NodeLoad& later = load_of(later_loads, "n1");
  EXPECT_EQ(later.departed, 1U);
  EXPECT_DOUBLE_EQ(later.departed_known, 0.5 * 3000);
  EXPECT_EQ(later.priced_receive.measurement, 1U) << "the gone pod";
  // Of the pods placed, only young is still pending: at the gone pod's last, half of it missing.
  EXPECT_EQ(later.priced_receive.workload_measurement, 1U) << "young";
  EXPECT_DOUBLE_EQ(later.pending_known, 0.5 * 3000);
}

// The recent read's rates are the pods' own, counted as they are however young the pod; the
// pods it does not name keep what the read of every pod measured.
TEST(PlacementLedger, ARecentReadPricesItsPodsAtTheirOwnRatesAndLeavesTheRest) {
  PlacementLedger state;
  state.upsert_pod(
      {.uid = "old", .node = "n1", .workload = "shop/Deployment/web", .name = "shop/old"}, kNow);
  const std::int64_t read = kNow + kLagMs + kWindowMs / 2;
  state.measure_pods(std::vector<MeasuredPod>{{.name = "shop/old", .receive = 500}}, at(read));
  state.upsert_pod(
      {.uid = "new", .node = "n1", .workload = "shop/Deployment/web", .name = "shop/new"},
      read + 20'000);
  state.measure_recent_pods(
      std::vector<MeasuredPod>{{.name = "shop/new", .receive = 300, .transmit = 40}});
  const std::vector<NodeLoad> loads = state.loads(at(read + 30'000));
  const NodeLoad& n1 = load_of(loads, "n1");
  EXPECT_EQ(n1.placed, 2U);
  EXPECT_EQ(n1.priced_receive.measurement, 2U);
  EXPECT_EQ(n1.priced_transmit.measurement, 1U);
  // old: 500 over the half it held, 1000 B/s, 0.4 of it still missing; new: all of 300 missing.
  const double old_pending = 0.4;
  EXPECT_DOUBLE_EQ(n1.pending_known, old_pending * 1000 + 300);
  // Transmit: new's own 40, old at its workload's measured mean, new's.
  EXPECT_DOUBLE_EQ(n1.pending_transmit_known, old_pending * 40 + 40);
}

// A pod of a workload nothing is known of, where each pod's traffic is read: the measured pods'
// mean plus two standard deviations, a gone pod at its last measurement included.
TEST(PlacementLedger, AnUnknownPodIsPricedAtTheMeasuredMeanPlusTwoDeviations) {
  PlacementLedger state;
  EXPECT_FALSE(state.measured_per_pod().receive) << "nothing measured";
  for (const char* uid : {"a", "b", "c"}) {
    state.upsert_pod({.uid = uid, .node = "n1", .name = std::string("shop/") + uid}, kLongAgo);
  }
  state.measure_pods(std::vector<MeasuredPod>{{.name = "shop/a", .receive = 100, .transmit = 7},
                                              {.name = "shop/b", .receive = 200},
                                              {.name = "shop/c", .receive = 300}},
                     at(kNow));
  state.remove_pod("c", kNow);
  const LearnedRates priced = state.measured_per_pod();
  // Mean 200; variance (100² + 200² + 300²) / 3 - 200² = 20000 / 3.
  ASSERT_TRUE(priced.receive);
  EXPECT_DOUBLE_EQ(*priced.receive, 200 + 2 * std::sqrt(20000.0 / 3));
  ASSERT_TRUE(priced.transmit);
  EXPECT_DOUBLE_EQ(*priced.transmit, 7) << "one pod measured: no deviation";
}

TEST(PlacementLedger, PodsPlacedSinceAreThoseOffTheHostNetworkStillMaybePending) {
  PlacementLedger state(kLagMs + kWindowMs);
  state.upsert_pod({.uid = "1", .node = "n1", .name = "shop/early"}, kNow);
  state.upsert_pod({.uid = "2", .node = "n1", .name = "shop/late"}, kNow + 1'000);
  state.upsert_pod({.uid = "h", .node = "n1", .name = "kube-system/e", .host_network = true},
                   kNow + 1'000);
  const std::vector<PlacedPod> since = state.pods_placed_since(kNow + 1'000);
  ASSERT_EQ(since.size(), 1U);
  EXPECT_EQ(since[0].name, "shop/late");
  EXPECT_EQ(since[0].placed_ms, kNow + 1'000);
  EXPECT_EQ(state.pods_placed_since(0).size(), 2U);
  EXPECT_TRUE(window_measures_pod(kLagMs + kWindowMs / 5 + 1'000, at(0)));
  EXPECT_FALSE(window_measures_pod(kLagMs + kWindowMs / 5 - 1'000, at(0)));
}

// What the rebalance nomination reads: every named pod with its workload, placement and prices.
TEST(PlacementLedger, BoundPodsNameEachPodOffTheHostNetworkWithItsPrices) {
  PlacementLedger state;
  PodFacts measured = pod("m", "n1", "ns/Deployment/web");
  measured.name = "ns/web-1";
  measured.nominated = true;
  PodFacts annotated = pod("a", "n2", "ns/Deployment/web");
  annotated.name = "ns/web-2";
  annotated.annotated_rate = 500;
  PodFacts host = pod("h", "n1");
  host.name = "ns/agent";
  host.host_network = true;
  state.upsert_pod(measured, kLongAgo);
  state.upsert_pod(annotated, kLongAgo + 5);
  state.upsert_pod(host, kLongAgo);
  const std::vector<MeasuredPod> read{{.name = "ns/web-1", .receive = 2000, .transmit = 100}};
  state.measure_pods(read, at(kNow));
  auto pods = state.bound_pods();
  std::sort(pods.begin(), pods.end(),
            [](const BoundPod& x, const BoundPod& y) { return x.name < y.name; });
  ASSERT_EQ(pods.size(), 2U);
  EXPECT_EQ(pods[0].name, "ns/web-1");
  EXPECT_EQ(pods[0].node, "n1");
  EXPECT_EQ(pods[0].workload, "ns/Deployment/web");
  EXPECT_EQ(pods[0].workload_pods, 2U);
  EXPECT_EQ(pods[0].placed_ms, kLongAgo);
  EXPECT_EQ(pods[0].receive.rate, 2000);
  EXPECT_EQ(pods[0].receive.source, PriceSource::measurement);
  EXPECT_EQ(pods[0].transmit.rate, 100);
  EXPECT_TRUE(pods[0].nominated);
  EXPECT_FALSE(pods[1].nominated);
  EXPECT_EQ(pods[1].name, "ns/web-2");
  EXPECT_EQ(pods[1].placed_ms, kLongAgo + 5);
  // Its workload's measured mean, the one measured pod's, before its annotation.
  EXPECT_EQ(pods[1].receive.rate, 2000);
  EXPECT_EQ(pods[1].receive.source, PriceSource::workload_measurement);
  EXPECT_EQ(pods[1].transmit.rate, 100);
  EXPECT_EQ(pods[1].transmit.source, PriceSource::workload_measurement);
}

}  // namespace
}  // namespace netscore::model
