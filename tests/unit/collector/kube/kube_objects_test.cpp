// The fields of Pod objects the correction reads: the workload a pod belongs to.
#include "collector/kube/kube_objects.h"

#include "collector/kube/cluster_state.h"

#include <gtest/gtest.h>

#include <string>

namespace netscore::collector {
namespace {

std::string workload(const std::string& metadata) {
  const auto pod =
      parse_pod(R"({"metadata": {"uid": "u1", "namespace": "shop", )" + metadata + "}}");
  return pod ? pod->workload : "unparsed";
}

TEST(PodWorkload, AReplicaSetNamedAfterItsDeploymentStandsForTheDeployment) {
  EXPECT_EQ(
      workload(R"("labels": {"pod-template-hash": "7d9f8c"}, "ownerReferences": [)"
               R"({"kind": "ReplicaSet", "name": "web-7d9f8c", "uid": "r", "controller": true}])"),
      "shop/Deployment/web");
  // A ReplicaSet of its own (no hash suffix) is its own workload.
  EXPECT_EQ(
      workload(R"("labels": {"pod-template-hash": "7d9f8c"}, "ownerReferences": [)"
               R"({"kind": "ReplicaSet", "name": "standalone", "uid": "r", "controller": true}])"),
      "shop/ReplicaSet/standalone");
  EXPECT_EQ(workload(R"("ownerReferences": [{"kind": "ReplicaSet", "name": "web-7d9f8c", )"
                     R"("uid": "r", "controller": true}])"),
            "shop/ReplicaSet/web-7d9f8c");
}

TEST(PodWorkload, OnlyTheControllingOwnerCounts) {
  EXPECT_EQ(workload(R"("ownerReferences": [{"kind": "ConfigMap", "name": "c", "uid": "c"}, )"
                     R"({"kind": "StatefulSet", "name": "db", "uid": "s", "controller": true}])"),
            "shop/StatefulSet/db");
  EXPECT_EQ(workload(R"("ownerReferences": [{"kind": "Job", "name": "j", "uid": "j"}])"), "");
  EXPECT_EQ(workload(R"("name": "bare")"), "");
}

TEST(PodWorkload, ACronJobsJobsStandForTheCronJob) {
  EXPECT_EQ(workload(R"("ownerReferences": [{"kind": "Job", "name": "report-29012345", )"
                     R"("uid": "j", "controller": true}])"),
            "shop/CronJob/report");
  EXPECT_EQ(workload(R"("ownerReferences": [{"kind": "Job", "name": "db-backup-29012346", )"
                     R"("uid": "j", "controller": true}])"),
            "shop/CronJob/db-backup");
  // Too few digits for a scheduled minute, or not digits: a Job of its own.
  EXPECT_EQ(workload(R"("ownerReferences": [{"kind": "Job", "name": "migrate-2", )"
                     R"("uid": "j", "controller": true}])"),
            "shop/Job/migrate-2");
  EXPECT_EQ(workload(R"("ownerReferences": [{"kind": "Job", "name": "load-2901234x", )"
                     R"("uid": "j", "controller": true}])"),
            "shop/Job/load-2901234x");
  EXPECT_EQ(workload(R"("ownerReferences": [{"kind": "Job", "name": "-29012345", )"
                     R"("uid": "j", "controller": true}])"),
            "shop/Job/-29012345");
  // Only a Job's name stands for a CronJob.
  EXPECT_EQ(workload(R"("ownerReferences": [{"kind": "ReplicaSet", "name": "web-29012345", )"
                     R"("uid": "r", "controller": true}])"),
            "shop/ReplicaSet/web-29012345");
}

TEST(PodWorkload, ABarePodIsNamedByItsRecommendedLabelThenAppThenGenerateName) {
  EXPECT_EQ(workload(R"("generateName": "runner-", "labels": {"app": "ci", )"
                     R"("app.kubernetes.io/name": "gitlab-runner"})"),
            "shop/label/gitlab-runner");
  EXPECT_EQ(workload(R"("generateName": "runner-", "labels": {"app": "ci"})"), "shop/label/ci");
  EXPECT_EQ(workload(R"("generateName": "runner-", "labels": {"app": ""})"),
            "shop/generateName/runner-");
  EXPECT_EQ(workload(R"("name": "bare", "labels": {"tier": "x"})"), "");
  // A controller wins over the labels.
  EXPECT_EQ(workload(R"("labels": {"app": "ci"}, "ownerReferences": [)"
                     R"({"kind": "StatefulSet", "name": "db", "uid": "s", "controller": true}])"),
            "shop/StatefulSet/db");
}

// Pods with nothing else created in one second are one burst of one workload; the next second, or
// another namespace, is another.
TEST(PodWorkload, ABarePodWithNothingElseIsNamedByTheSecondItWasCreatedIn) {
  const std::string created = R"("name": "runner-a", "creationTimestamp": "2026-11-30T14:00:01Z")";
  EXPECT_EQ(workload(created), "shop/created/2026-11-30T14:00:01Z");
  EXPECT_EQ(workload(R"("name": "runner-b", "creationTimestamp": "2026-11-30T14:00:01Z")"),
            workload(created));
  EXPECT_NE(workload(R"("name": "runner-c", "creationTimestamp": "2026-11-30T14:00:02Z")"),
            workload(created));
  const auto other =
      parse_pod(R"({"metadata": {"uid": "u1", "namespace": "ci", )" + created + "}}");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->workload, "ci/created/2026-11-30T14:00:01Z");
  // Anything else the pod carries names it first.
  EXPECT_EQ(workload(R"("generateName": "runner-", )" + created), "shop/generateName/runner-");
  EXPECT_EQ(workload(R"("labels": {"app": "ci"}, )" + created), "shop/label/ci");
}

struct Ceilings {
  double receive, transmit;
};

Ceilings ceilings(const std::string& annotations) {
  const auto pod = parse_pod(R"({"metadata": {"uid": "u1", "namespace": "shop", "name": "p", )"
                             R"("annotations": {)" +
                             annotations + "}}}");
  return pod ? Ceilings{pod->receive_ceiling, pod->transmit_ceiling} : Ceilings{-2, -2};
}

TEST(PodAnnotations, BandwidthCeilingsAreBitsPerSecondWithinTheCniPluginsBounds) {
  const auto both = ceilings(R"("kubernetes.io/ingress-bandwidth": "10M", )"
                             R"("kubernetes.io/egress-bandwidth": "1G")");
  EXPECT_EQ(both.receive, 10e6 / 8);
  EXPECT_EQ(both.transmit, 1e9 / 8);
  const auto bounds = ceilings(R"("kubernetes.io/ingress-bandwidth": "1k", )"
                               R"("kubernetes.io/egress-bandwidth": "1P")");
  EXPECT_EQ(bounds.receive, 1e3 / 8);
  EXPECT_EQ(bounds.transmit, 1e15 / 8);
  const auto none = ceilings(R"("netscore.io/expected-receive-rate": "5")");
  EXPECT_LT(none.receive, 0);
  EXPECT_LT(none.transmit, 0);
  for (const char* bad : {"999", "2P", "-10M", "ten", "", "1e6"}) {
    const auto c = ceilings(std::string(R"("kubernetes.io/ingress-bandwidth": ")") + bad +
                            R"(", "kubernetes.io/egress-bandwidth": ")" + bad + R"(")");
    EXPECT_LT(c.receive, 0) << bad;
    EXPECT_LT(c.transmit, 0) << bad;
  }
}

TEST(ListPage, ItemsResourceVersionAndContinueToken) {
  rapidjson::Document doc;
  const auto page = parse_list_page(
      R"({"metadata": {"resourceVersion": "42", "continue": "next"}, "items": [{}, {}]})", doc);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->items->Size(), 2U);
  EXPECT_EQ(page->resource_version, "42");
  EXPECT_EQ(page->continue_token, "next");
  const auto last = parse_list_page(R"({"items": []})", doc);
  ASSERT_TRUE(last);
  EXPECT_EQ(last->continue_token, "");
  EXPECT_EQ(last->resource_version, "");
  EXPECT_FALSE(parse_list_page(R"({"kind": "Status"})", doc));
  EXPECT_FALSE(parse_list_page(R"({"items": {}})", doc));
  EXPECT_FALSE(parse_list_page("not json", doc));
}

TEST(WatchEvent, TypeAndObjectOrNothing) {
  rapidjson::Document doc;
  const auto event = parse_watch_event(
      R"({"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "7"}}})", doc);
  ASSERT_TRUE(event);
  EXPECT_EQ(event->type, "BOOKMARK");
  EXPECT_EQ(resource_version_of(*event->object), "7");
  EXPECT_FALSE(parse_watch_event(R"({"type": "ADDED"})", doc));
  EXPECT_FALSE(parse_watch_event(R"({"type": 1, "object": {}})", doc));
  EXPECT_FALSE(parse_watch_event(R"({"type": "ADDED", "object": []})", doc));
  EXPECT_FALSE(parse_watch_event("{not json", doc));
}

TEST(WatchEvent, AnErrorEventCarriesItsStatusCode) {
  rapidjson::Document doc;
  const auto gone = parse_watch_event(
      R"({"type": "ERROR", "object": {"kind": "Status", "code": 410, "reason": "Expired"}})", doc);
  ASSERT_TRUE(gone);
  EXPECT_EQ(error_event_code(*gone->object), 410);
  const auto bare = parse_watch_event(R"({"type": "ERROR", "object": {"code": "410"}})", doc);
  ASSERT_TRUE(bare);
  EXPECT_EQ(error_event_code(*bare->object), 0);
}

TEST(NodeObject, NameResourceVersionAndRuleMask) {
  const LabelRules rules = parse_label_rules("type=space:kubernetes.io/role=edge");
  rapidjson::Document doc;
  doc.Parse(R"({"metadata": {"name": "n1", "resourceVersion": "9",
                "labels": {"kubernetes.io/role": "edge"}}})");
  const auto node = parse_node(doc, rules);
  ASSERT_TRUE(node);
  EXPECT_EQ(node->name, "n1");
  EXPECT_EQ(node->resource_version, "9");
  EXPECT_EQ(node->rule_mask, 1U);
  doc.Parse(R"({"metadata": {"labels": {}}})");
  EXPECT_FALSE(parse_node(doc, rules));
}

struct Rates {
  double receive, transmit;
};

Rates annotated(const std::string& annotations) {
  const auto pod =
      parse_pod(R"({"metadata": {"uid": "u1", "annotations": {)" + annotations + "}}}");
  return pod ? Rates{pod->annotated_rate, pod->annotated_transmit_rate} : Rates{-2, -2};
}

TEST(PodAnnotations, ReceiveAndTransmitRatesAsNumbersOrQuantities) {
  const auto both = annotated(R"("netscore.io/expected-receive-rate": "2500", )"
                              R"("netscore.io/expected-transmit-rate": "10Mi")");
  EXPECT_EQ(both.receive, 2500);
  EXPECT_EQ(both.transmit, 10.0 * 1024 * 1024);
  const auto quantity = annotated(R"("netscore.io/expected-receive-rate": "1.5k")");
  EXPECT_EQ(quantity.receive, 1500);
  EXPECT_LT(quantity.transmit, 0) << "absent";
  const auto decimal = annotated(R"("netscore.io/expected-transmit-rate": "12.5")");
  EXPECT_EQ(decimal.transmit, 12.5);
  EXPECT_LT(decimal.receive, 0);
  for (const char* bad : {"-3", "abc", "", "1e3", "inf", "5 k", "2000000000000000"}) {
    const auto r = annotated(std::string(R"("netscore.io/expected-receive-rate": ")") + bad +
                             R"(", "netscore.io/expected-transmit-rate": ")" + bad + R"(")");
    EXPECT_LT(r.receive, 0) << bad;
    EXPECT_LT(r.transmit, 0) << bad;
  }
  const auto not_a_string = annotated(R"("netscore.io/expected-transmit-rate": 500)");
  EXPECT_LT(not_a_string.transmit, 0) << "annotations are strings";
}

TEST(KubeObjects, ParsesTimestampsAndTheRateAnnotation) {
  EXPECT_EQ(parse_rfc3339_ms("1970-01-01T00:00:01Z"), 1000);
  EXPECT_EQ(parse_rfc3339_ms("2023-03-01T10:00:00.250Z"), 1677664800250);
  EXPECT_EQ(parse_rfc3339_ms("2023-03-01T12:00:00+02:00"), 1677664800000);
  EXPECT_FALSE(parse_rfc3339_ms("yesterday").has_value());
  const auto pod = parse_pod(std::string_view(
      R"({"metadata":{"uid":"u1","resourceVersion":"7","creationTimestamp":"1970-01-01T00:00:01Z",)"
      R"("annotations":{"netscore.io/expected-receive-rate":"2500"}},"spec":{"nodeName":"n1"},)"
      R"("status":{"phase":"Running","conditions":[{"type":"PodScheduled","status":"True","lastTransitionTime":"1970-01-01T00:00:05Z"}]}})"));
  ASSERT_TRUE(pod.has_value());
  EXPECT_EQ(pod->node, "n1");
  EXPECT_EQ(pod->scheduled_ms, 5000);
  EXPECT_EQ(pod->annotated_rate, 2500);
  EXPECT_EQ(pod->resource_version, "7");
  EXPECT_FALSE(parse_pod(std::string_view(R"({"metadata":{}})")).has_value());
  const auto bad_rate = parse_pod(std::string_view(
      R"({"metadata":{"uid":"u","annotations":{"netscore.io/expected-receive-rate":"-3"}}})"));
  ASSERT_TRUE(bad_rate.has_value());
  EXPECT_LT(bad_rate->annotated_rate, 0);
}

// A pod that finished, or that is being deleted, no longer counts where it ran.
TEST(PodObject, FinishedOrTerminatingPodsAreTerminal) {
  const auto pod_with = [](std::string_view metadata, std::string_view phase) {
    return parse_pod(R"({"metadata":{"uid":"u1")" + std::string(metadata) +
                     R"(},"spec":{"nodeName":"n1"},"status":{"phase":")" + std::string(phase) +
                     R"("}})");
  };
  EXPECT_FALSE(pod_with("", "Running")->terminal);
  EXPECT_TRUE(pod_with("", "Succeeded")->terminal);
  EXPECT_TRUE(pod_with("", "Failed")->terminal);
  EXPECT_TRUE(
      pod_with(R"(,"deletionTimestamp":"2023-03-01T10:00:00Z","deletionGracePeriodSeconds":30)",
               "Running")
          ->terminal);
}

TEST(PodObject, NamespaceNameAndHostNetwork) {
  const auto pod = parse_pod(std::string_view(
      R"({"metadata":{"uid":"u1","namespace":"kube-system","name":"node-exporter-x"},)"
      R"("spec":{"nodeName":"n1","hostNetwork":true}})"));
  ASSERT_TRUE(pod.has_value());
  EXPECT_EQ(pod->name, "kube-system/node-exporter-x");
  EXPECT_TRUE(pod->host_network);
  const auto plain = parse_pod(std::string_view(
      R"({"metadata":{"uid":"u2","namespace":"shop","name":"web-1"},"spec":{"nodeName":"n1"}})"));
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->name, "shop/web-1");
  EXPECT_FALSE(plain->host_network);
}

TEST(PodRebalanceLabel, OnlyTheNominatingValueCounts) {
  const auto labelled = [](const std::string& labels) {
    const auto pod = parse_pod(R"({"metadata": {"uid": "u1", "namespace": "shop", "labels": {)" +
                               labels + "}}}");
    return pod && pod->nominated;
  };
  EXPECT_TRUE(labelled(R"("netscore.io/rebalance": "evict")"));
  EXPECT_FALSE(labelled(R"("netscore.io/rebalance": "keep")"));
  EXPECT_FALSE(labelled(R"("netscore.io/rebalance": true)"));
  EXPECT_FALSE(labelled(R"("app": "evict")"));
}

}  // namespace
}  // namespace netscore::collector
