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

}  // namespace
}  // namespace netscore::collector
