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

}  // namespace
}  // namespace netscore::collector
