// The placement ledger's prices: transmit annotations on their own side, a declared bandwidth
// ceiling capping a price or pricing a pod alone, for placed and gone pods (hand-computed cases).
#include "common/model/placement_ledger.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/model/pricing.h"
#include "tests/unit/common/model/placement_ledger_fixtures.h"

namespace netscore::model {
namespace {

TEST(PlacementLedger, TransmitAnnotationsArePricedOnTheirOwnSide) {
  PlacementLedger state;
  // Placed at kNow, seen half a window after the lag: half of each pod is still missing.
  PodFacts both = pod("both", "n1");
  both.annotated_rate = 100;
  both.annotated_transmit_rate = 4000;
  PodFacts transmit_only = pod("tx", "n1");
  transmit_only.annotated_transmit_rate = 600;
  state.upsert_pod(both, kNow);
  state.upsert_pod(transmit_only, kNow);
  state.upsert_pod(pod("plain", "n1"), kNow);
  // Gone at kNow after a long life: half a window later half of its traffic is still held.
  PodFacts gone = pod("gone", "n1");
  gone.annotated_transmit_rate = 2000;
  state.upsert_pod(gone, kLongAgo);
  state.remove_pod("gone", kNow);
  const auto loads = state.loads(at(kNow + kLagMs + kWindowMs / 2));
  const NodeLoad& n1 = load_of(loads, "n1");
  EXPECT_EQ(n1.placed, 3U);
  EXPECT_EQ(n1.departed, 1U);
  EXPECT_EQ(n1.priced_receive.annotation, 1U) << "receive: only `both`";
  EXPECT_EQ(n1.priced_transmit.annotation, 3U);
  EXPECT_DOUBLE_EQ(n1.pending_known, 0.5 * 100);
  EXPECT_DOUBLE_EQ(n1.pending_known_share, 0.5);
  EXPECT_DOUBLE_EQ(n1.pending_plain, 1.0);  // tx and plain, half each
  EXPECT_DOUBLE_EQ(n1.pending_transmit_known, 0.5 * 4000 + 0.5 * 600);
  EXPECT_DOUBLE_EQ(n1.pending_transmit_known_share, 1.0);
  EXPECT_DOUBLE_EQ(n1.departed_plain, 0.5) << "no receive annotation";
  EXPECT_DOUBLE_EQ(n1.departed_transmit_known, 0.5 * 2000);
  EXPECT_DOUBLE_EQ(n1.departed_transmit_known_share, 0.5);
}

PodFacts ceilinged(const std::string& uid, double receive_ceiling, double transmit_ceiling) {
  PodFacts p = pod(uid, "n1");
  p.receive_ceiling = receive_ceiling;
  p.transmit_ceiling = transmit_ceiling;
  return p;
}

TEST(PlacementLedger, ACeilingCapsAnAnnotationAndPricesAPodNothingElsePrices) {
  PlacementLedger state;
  PodFacts over = ceilinged("over", 1000, 300);
  over.annotated_rate = 5000;
  over.annotated_transmit_rate = 200;
  PodFacts under = ceilinged("under", 1000, -1);
  under.annotated_rate = 400;
  state.upsert_pod(over, kNow);
  state.upsert_pod(under, kNow);
  state.upsert_pod(ceilinged("only", 2000, 800), kNow);
  state.upsert_pod(pod("plain", "n1"), kNow);
  const std::vector<NodeLoad> n1_loads = state.loads(at(kNow));
  const NodeLoad& n1 = load_of(n1_loads, "n1");  // all wholly pending
  EXPECT_EQ(n1.placed, 4U);
  // Receive: over capped at 1000, under at its annotation, only at a share of its ceiling.
  EXPECT_DOUBLE_EQ(n1.pending_known, 1000 + 400 + 2000 * kCeilingPodShare);
  EXPECT_DOUBLE_EQ(n1.pending_known_share, 3.0);
  EXPECT_DOUBLE_EQ(n1.pending_plain, 1.0);
  EXPECT_EQ(n1.priced_receive.annotation, 1U) << "under";
  EXPECT_EQ(n1.priced_receive.ceiling, 2U) << "over, only";
  // Transmit: over's annotation is below its ceiling; only at a share of its ceiling.
  EXPECT_DOUBLE_EQ(n1.pending_transmit_known, 200 + 800 * kCeilingPodShare);
  EXPECT_DOUBLE_EQ(n1.pending_transmit_known_share, 2.0);
  EXPECT_EQ(n1.priced_transmit.annotation, 1U);
  EXPECT_EQ(n1.priced_transmit.ceiling, 1U);
}

TEST(PlacementLedger, AGonePodIsTakenOutAtItsCeilingsPrice) {
  PlacementLedger state;
  state.upsert_pod(ceilinged("gone", 1000, 600), kLongAgo);
  state.remove_pod("gone", kNow);
  const std::vector<NodeLoad> n1_loads = state.loads(at(kNow + kLagMs + kWindowMs / 2));
  const NodeLoad& n1 = load_of(n1_loads, "n1");
  EXPECT_EQ(n1.departed, 1U);
  EXPECT_DOUBLE_EQ(n1.departed_known, 0.5 * 1000 * kCeilingPodShare);
  EXPECT_DOUBLE_EQ(n1.departed_transmit_known, 0.5 * 600 * kCeilingPodShare);
  EXPECT_DOUBLE_EQ(n1.departed_plain, 0.0);
}

}  // namespace
}  // namespace netscore::model
