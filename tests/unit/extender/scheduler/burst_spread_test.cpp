#include "extender/scheduler/burst_spread.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/model/pricing.h"
#include "common/table/score_table_writer.h"
#include "extender/http/handlers.h"
#include "tests/unit/extender/correction_fixture.h"

// The extender's prioritize decision (BurstSpread around model::prioritize) as the handlers serve
// it, over tables published here with placement correction (the collector's side is tested with
// the collector).
namespace netscore::extender {
namespace {

using correction_fixture::CorrectionTest;
using correction_fixture::entries;
using correction_fixture::uncorrected_entries;
namespace http = boost::beast::http;

TEST_F(CorrectionTest, RequestModeNormalisesMeasuredPlusExpectedOverTheRequestedNodes) {
  publish(entries(), shm::kSnapshotCorrected | shm::kSnapshotClusterSynced);
  // Corrected max 300: a 100-100=0→0, b 100-16=84→8, c 100-66=34→3. Seed would give a 10, b 8, c 0.
  EXPECT_EQ(prioritize(R"(["a","b","c"])"),
            R"([{"Host":"a","Score":0},{"Host":"b","Score":8},{"Host":"c","Score":3}])");
  // Without a the max is c's 200: b 75→8, c 0→0.
  EXPECT_EQ(prioritize(R"(["b","c"])"), R"([{"Host":"b","Score":8},{"Host":"c","Score":0}])");
}

// A pod of a controlling owner: the body prioritize gets for it over the nodes b and c.
std::string pod_request(std::string_view uid, std::string_view owner) {
  const std::string owners = owner.empty() ? std::string("[]")
                                           : R"([{"kind":"ReplicaSet","uid":")" +
                                                 std::string(owner) + R"(","controller":true}])";
  return R"({"Pod":{"metadata":{"uid":")" + std::string(uid) + R"(","ownerReferences":)" + owners +
         R"(}},"Nodes":null,"NodeNames":["b","c"]})";
}

TEST_F(CorrectionTest, ReplicasOfOneWorkloadAreSpreadBeforeTheirBindingsReachTheTable) {
  config_.extender.spread_window = {std::chrono::milliseconds(200), "200ms"};
  publish_rows(entries(), {.eval_time_ms = 1000,
                           .flags = shm::kSnapshotCorrected | shm::kSnapshotClusterSynced,
                           .pod_price = 100});
  const auto answer = [&](std::string_view uid, std::string_view owner) {
    return call(http::verb::post, "/netscore/prioritize", pod_request(uid, owner)).body;
  };
  // b 50 and c 200 (max 200): b 75 -> 8, c 0. Recommended alone: b 10.
  EXPECT_EQ(answer("p1", "rs"), R"([{"Host":"b","Score":10},{"Host":"c","Score":0}])");
  // b now counts one assumed pod at twice the price: 250 against c's 200 (max 250): b 0, c 20.
  EXPECT_EQ(answer("p2", "rs"), R"([{"Host":"b","Score":0},{"Host":"c","Score":10}])");
  // b 250, c 400: b 38 -> 4 and the best again.
  EXPECT_EQ(answer("p3", "rs"), R"([{"Host":"b","Score":10},{"Host":"c","Score":0}])");
  // Another workload's pod sees those three at one price each: b 50 + 200, c 200 + 100.
  EXPECT_EQ(answer("q1", "other"), R"([{"Host":"b","Score":10},{"Host":"c","Score":0}])");
  // A pod without an owner is no exception (kube-scheduler's cache assumes it too): b 50 + 300,
  // c 300.
  EXPECT_EQ(answer("lone", ""), R"([{"Host":"b","Score":0},{"Host":"c","Score":10}])");
}

// A pod without an owner, in `ns`, with app.kubernetes.io/name `app` (none when empty), over b and
// c.
std::string labelled_request(std::string_view uid, std::string_view ns, std::string_view app) {
  const std::string labels =
      app.empty() ? std::string("{}")
                  : R"({"app":"x","app.kubernetes.io/name":")" + std::string(app) + R"("})";
  return R"({"Pod":{"metadata":{"uid":")" + std::string(uid) + R"(","namespace":")" +
         std::string(ns) + R"(","labels":)" + labels + R"(}},"Nodes":null,"NodeNames":["b","c"]})";
}

// Pods without a controller that share an app.kubernetes.io/name in one namespace are one burst:
// at most kLabelledSiblingsPerNode of them are recommended to a node while another is usable.
TEST_F(CorrectionTest, ALabelledBurstWithoutAnOwnerGetsAtMostTwoPodsOnANode) {
  ASSERT_EQ(model::kLabelledSiblingsPerNode, 2U);
  config_.extender.spread_window = {std::chrono::milliseconds(200), "200ms"};
  // A price of 10 per pod: b (50) stays the quieter node for many pods.
  publish_rows(entries(), {.eval_time_ms = 1000,
                           .flags = shm::kSnapshotCorrected | shm::kSnapshotClusterSynced,
                           .pod_price = 10});
  const auto best = [&](std::string_view uid, std::string_view ns, std::string_view app) {
    const std::string body =
        call(http::verb::post, "/netscore/prioritize", labelled_request(uid, ns, app)).body;
    if (body.find(R"({"Host":"b","Score":10})") != std::string::npos) return std::string("b");
    if (body.find(R"({"Host":"c","Score":10})") != std::string::npos) return std::string("c");
    return "no recommendation in " + body;
  };
  EXPECT_EQ(best("r1", "ci", "project-a"), "b");
  EXPECT_EQ(best("r2", "ci", "project-a"), "b");  // b 50 + 2 x 10 against c 200
  EXPECT_EQ(best("r3", "ci", "project-a"), "c");  // b still quieter, but it has two of the burst
  // Another project, the same name in another namespace, and a pod without the label are not of
  // that burst: b is theirs.
  EXPECT_EQ(best("o1", "ci", "project-b"), "b");
  EXPECT_EQ(best("o2", "other", "project-a"), "b");
  EXPECT_EQ(best("o3", "ci", ""), "b");
  // Once every node has two of the burst, the quieter one again.
  EXPECT_EQ(best("r4", "ci", "project-a"), "c");
  EXPECT_EQ(best("r5", "ci", "project-a"), "b");
}

TEST_F(CorrectionTest, AnAssumedPodOnALinkIsPricedByThatLinksSpeed) {
  config_.extender.spread_window = {std::chrono::milliseconds(200), "200ms"};
  constexpr std::uint32_t kOnLink =
      shm::kEntryHasSeries | shm::kEntryInCluster | shm::kEntryValid | shm::kEntryUtilisation;
  // b: 1024 B/s on 4096 B/s (250000 ppm); c: 19660.8 B/s on a four times faster link (1200000
  // ppm).
  const std::vector<TableEntry> links{{{.raw = 1024,
                                        .raw_score = 250000,
                                        .sample_ms = 1000,
                                        .rate = 1024,
                                        .corrected_raw_score = 250000,
                                        .flags = kOnLink | shm::kEntryRateValid,
                                        .speed = 4096,
                                        .scored = 0.25},
                                       "b"},
                                      {{.raw = 19660.8,
                                        .raw_score = 1200000,
                                        .sample_ms = 1000,
                                        .rate = 19660.8,
                                        .corrected_raw_score = 1200000,
                                        .flags = kOnLink | shm::kEntryRateValid,
                                        .speed = 16384,
                                        .scored = 1.2},
                                       "c"}};
  // pod_price is what raw-scored nodes would pay: 1 byte, nothing against ppm. pod_rate is 1024
  // B/s: 250000 ppm on b, 62500 on c.
  publish_rows(links, {.eval_time_ms = 1000,
                       .flags = shm::kSnapshotCorrected | shm::kSnapshotClusterSynced,
                       .pod_price = 1,
                       .basis = ScoreBasis::utilisation,
                       .pod_rate = 1024});
  const auto answer = [&](std::string_view uid) {
    return call(http::verb::post, "/netscore/prioritize", pod_request(uid, "rs")).body;
  };
  // With the pod itself at four prices: b 250000 + 1000000 = 1250000, c 1200000 + 250000 =
  // 1450000.
  EXPECT_EQ(answer("p1"), R"([{"Host":"b","Score":10},{"Host":"c","Score":0}])");
  // b: 1250000 + 2 x 250000 = 1750000 against c's 1450000.
  EXPECT_EQ(answer("p2"), R"([{"Host":"b","Score":0},{"Host":"c","Score":10}])");
  // c: 1450000 + 2 x 62500 = 1575000, still below b's 1750000; priced as on b it would be 1950000.
  EXPECT_EQ(answer("p3"), R"([{"Host":"b","Score":0},{"Host":"c","Score":10}])");
}

// The pod being placed is priced on each link by what its annotation says it receives, else at
// four unknown pods; a link a quarter as fast pays four times as much of its speed.
TEST_F(CorrectionTest, ThePodBeingPlacedIsPricedByItsAnnotationOnEachLink) {
  constexpr std::uint32_t kOnLink = shm::kEntryHasSeries | shm::kEntryInCluster | shm::kEntryValid |
                                    shm::kEntryUtilisation | shm::kEntryRateValid;
  // b: 250000 ppm of 4096 B/s; c: 1200000 ppm of 16384 B/s.
  const std::vector<TableEntry> links{{{.raw_score = 250000,
                                        .corrected_raw_score = 250000,
                                        .flags = kOnLink,
                                        .speed = 4096,
                                        .scored = 0.25},
                                       "b"},
                                      {{.raw_score = 1200000,
                                        .corrected_raw_score = 1200000,
                                        .flags = kOnLink,
                                        .speed = 16384,
                                        .scored = 1.2},
                                       "c"}};
  publish_rows(links, {.eval_time_ms = 1000,
                       .flags = shm::kSnapshotCorrected | shm::kSnapshotClusterSynced,
                       .pod_price = 1,
                       .basis = ScoreBasis::utilisation,
                       .pod_rate = 1024});
  const auto answer = [&](std::string_view annotations) {
    return call(http::verb::post, "/netscore/prioritize",
                R"({"Pod":{"metadata":{"uid":"p","annotations":)" + std::string(annotations) +
                    R"(}},"Nodes":null,"NodeNames":["b","c"]})")
        .body;
  };
  // Unknown: four prices of 1024 B/s, b 250000 + 1000000, c 1200000 + 250000: b 100 - 86 -> 1.
  EXPECT_EQ(answer("{}"), R"([{"Host":"b","Score":1},{"Host":"c","Score":0}])");
  // 100 B/s: b 250000 + 24414, c 1200000 + 6103: b 100 - 22 -> 8.
  EXPECT_EQ(answer(R"({"netscore.io/expected-receive-rate":"100"})"),
            R"([{"Host":"b","Score":8},{"Host":"c","Score":0}])");
  // 8k: b 250000 + 1953125, c 1200000 + 488281: c 100 - 76 -> 2.
  EXPECT_EQ(answer(R"({"netscore.io/expected-receive-rate":"8k"})"),
            R"([{"Host":"b","Score":0},{"Host":"c","Score":2}])");
  // The snapshot scores receive: a transmit annotation alone says nothing about it.
  EXPECT_EQ(answer(R"({"netscore.io/expected-transmit-rate":"8k"})"),
            R"([{"Host":"b","Score":1},{"Host":"c","Score":0}])");
}

TEST_F(CorrectionTest, AnAssumptionEndsWithASnapshotPublishedAWindowLater) {
  config_.extender.spread_window = {std::chrono::milliseconds(1), "1ms"};
  const SnapshotInfo info{.eval_time_ms = 1000,
                          .flags = shm::kSnapshotCorrected | shm::kSnapshotClusterSynced,
                          .pod_price = 100};
  publish_rows(entries(), info);
  // Recommended 5 ms before the next snapshot is published: that snapshot shows the binding.
  const std::int64_t recommended_at = mono_now_ns() - 5'000'000;
  EXPECT_EQ(
      call(http::verb::post, "/netscore/prioritize", pod_request("p1", "rs"), recommended_at).body,
      R"([{"Host":"b","Score":10},{"Host":"c","Score":0}])");
  publish_rows(entries(), info);
  EXPECT_EQ(call(http::verb::post, "/netscore/prioritize", pod_request("p2", "rs")).body,
            R"([{"Host":"b","Score":10},{"Host":"c","Score":0}])");
}

TEST_F(CorrectionTest, ClusterModeUsesTheCorrectedNodeScore) {
  config_.extender.normalisation = Normalisation::cluster;
  publish(entries(), shm::kSnapshotCorrected | shm::kSnapshotClusterSynced);
  // corrected_node_score 0→0, 84→8, 34→3; the node without a series gets the neutral 5.
  EXPECT_EQ(
      prioritize(R"(["a","b","c","quiet-node"])"),
      R"([{"Host":"a","Score":0},{"Host":"b","Score":8},{"Host":"c","Score":3},{"Host":"quiet-node","Score":5}])");
}

TEST_F(CorrectionTest, WithoutTheFlagAnswersAreByteIdenticalToAnUncorrectedTable) {
  publish(uncorrected_entries(), 0);
  const std::vector<std::string> seed = answers();
  // Request mode over a, b, c is the seed's 10, 8, 0: the expected values below must not leak in.
  EXPECT_EQ(seed[0], R"([{"Host":"a","Score":10},{"Host":"b","Score":8},{"Host":"c","Score":0}])");
  publish(entries(), shm::kSnapshotClusterSynced);
  EXPECT_EQ(answers(), seed);
  publish(entries(), shm::kSnapshotCorrected | shm::kSnapshotClusterSynced);
  EXPECT_NE(answers(), seed);  // the comparison above can fail
}

}  // namespace
}  // namespace netscore::extender
