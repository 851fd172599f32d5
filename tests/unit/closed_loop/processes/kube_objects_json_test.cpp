#include "bench/closed_loop/processes/kube_objects_json.h"

#include <cstddef>
#include <optional>
#include <string>

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/pointer.h>

#include "bench/closed_loop/workload/pod_owner.h"
#include "collector/kube/kube_objects.h"

namespace netscore::sim::kube_json {
namespace {

rapidjson::Document parsed(const std::string& json) {
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  EXPECT_FALSE(doc.HasParseError()) << json;
  return doc;
}

std::string at(const rapidjson::Document& doc, const char* pointer) {
  const rapidjson::Value* value = rapidjson::Pointer(pointer).Get(doc);
  return value != nullptr && value->IsString() ? value->GetString()
                                               : "<missing " + std::string(pointer) + ">";
}

bool absent(const rapidjson::Document& doc, const char* pointer) {
  return rapidjson::Pointer(pointer).Get(doc) == nullptr;
}

// Every label of `selector` (a matchLabels object) carried by the pod with those labels.
bool selects(const rapidjson::Value& selector, const Labels& labels) {
  for (const auto& m : selector.GetObject()) {
    const auto it = labels.find(m.name.GetString());
    if (it == labels.end() || it->second != m.value.GetString()) return false;
  }
  return selector.MemberCount() > 0;
}

Trace one_pod_trace(OwnerKind kind) {
  Trace trace;
  trace.deployments.push_back({.name = "web"});
  PodSpec pod;
  pod.owner_kind = kind;
  pod.ns = "shop";
  pod.name = "web-5d8f7-abcde";
  pod.replicaset = kind == OwnerKind::replicaset ? "web-5d8f7" : "web";
  pod.template_hash = "5d8f7";
  trace.pods.push_back(pod);
  return trace;
}

TEST(KubeObjectsJsonTest, AReplicaSetSelectsItsPodsAsPodTopologySpreadNeedsIt) {
  const Trace trace = one_pod_trace(OwnerKind::replicaset);
  const auto owner_doc = parsed(owner(trace, trace.pods[0], 4));
  EXPECT_EQ(at(owner_doc, "/apiVersion"), "apps/v1");
  EXPECT_EQ(at(owner_doc, "/kind"), "ReplicaSet");
  EXPECT_EQ(at(owner_doc, "/metadata/name"), "web-5d8f7");
  EXPECT_EQ(at(owner_doc, "/metadata/namespace"), "shop");
  EXPECT_EQ(rapidjson::Pointer("/spec/replicas").Get(owner_doc)->GetUint(), 4U);
  const Labels labels = pod_labels(trace, trace.pods[0], "uid-1");
  EXPECT_EQ(labels, (Labels{{"app", "web"}, {"pod-template-hash", "5d8f7"}}));
  EXPECT_TRUE(selects(*rapidjson::Pointer("/spec/selector/matchLabels").Get(owner_doc), labels));
  // The API server refuses a template its selector does not match.
  EXPECT_TRUE(selects(*rapidjson::Pointer("/spec/selector/matchLabels").Get(owner_doc),
                      {{"app", "web"}, {"pod-template-hash", "5d8f7"}}));
  EXPECT_EQ(at(owner_doc, "/spec/template/metadata/labels/pod-template-hash"), "5d8f7");
  EXPECT_EQ(owner_collection(OwnerKind::replicaset, "shop"),
            "/apis/apps/v1/namespaces/shop/replicasets");
}

TEST(KubeObjectsJsonTest, AStatefulSetSelectsEveryRevisionAJobGetsItsSelectorGenerated) {
  const Trace sts = one_pod_trace(OwnerKind::statefulset);
  const auto sts_doc = parsed(owner(sts, sts.pods[0], 1));
  EXPECT_EQ(at(sts_doc, "/kind"), "StatefulSet");
  EXPECT_EQ(at(sts_doc, "/spec/serviceName"), "web");
  const Labels sts_labels = pod_labels(sts, sts.pods[0], "u");
  // The revision's name: the set's, then FNV-1a (32 bits) of it, computed apart (Python:
  // h = 0x811c9dc5; h = ((h ^ byte) * 0x01000193) % 2**32 over b"web").
  EXPECT_EQ(sts_labels.at("controller-revision-hash"), "web-0fd9bc91");
  // A StatefulSet pod has no template hash in a generated trace: its label must still end with an
  // alphanumeric, or the API server refuses the pod.
  Trace generated = sts;
  generated.pods[0].template_hash.clear();
  EXPECT_EQ(pod_labels(generated, generated.pods[0], "u").at("controller-revision-hash"),
            "web-0fd9bc91");
  EXPECT_TRUE(selects(*rapidjson::Pointer("/spec/selector/matchLabels").Get(sts_doc), sts_labels));
  EXPECT_EQ(owner_collection(OwnerKind::statefulset, "a"),
            "/apis/apps/v1/namespaces/a/statefulsets");

  const Trace job = one_pod_trace(OwnerKind::job);
  const auto job_doc = parsed(owner(job, job.pods[0], 1));
  EXPECT_EQ(at(job_doc, "/apiVersion"), "batch/v1");
  EXPECT_EQ(at(job_doc, "/kind"), "Job");
  EXPECT_TRUE(absent(job_doc, "/spec/selector"));
  EXPECT_EQ(at(job_doc, "/spec/template/spec/restartPolicy"), "Never");
  EXPECT_EQ(pod_labels(job, job.pods[0], "job-uid"),
            (Labels{{"app", "web"}, {"job-name", "web"}, {"controller-uid", "job-uid"}}));
  EXPECT_EQ(owner_collection(OwnerKind::job, "a"), "/apis/batch/v1/namespaces/a/jobs");
  EXPECT_EQ(owner_type(OwnerKind::none).kind, "");
}

TEST(KubeObjectsJsonTest, APodHasTheModelsRequestsAndItsControllerReference) {
  const auto doc =
      parsed(pod({.ns = "shop",
                  .name = "web-5d8f7-abcde",
                  .labels = {{"app", "web"}},
                  .owner = owner_reference(OwnerKind::replicaset, "web-5d8f7", "uid-1"),
                  .scheduler_name = "default-scheduler"}));
  EXPECT_EQ(at(doc, "/kind"), "Pod");
  EXPECT_EQ(at(doc, "/metadata/labels/app"), "web");
  EXPECT_EQ(at(doc, "/metadata/ownerReferences/0/kind"), "ReplicaSet");
  EXPECT_EQ(at(doc, "/metadata/ownerReferences/0/apiVersion"), "apps/v1");
  EXPECT_EQ(at(doc, "/metadata/ownerReferences/0/uid"), "uid-1");
  EXPECT_TRUE(rapidjson::Pointer("/metadata/ownerReferences/0/controller").Get(doc)->GetBool());
  EXPECT_EQ(at(doc, "/spec/containers/0/resources/requests/cpu"), "100m");
  EXPECT_EQ(at(doc, "/spec/containers/0/resources/requests/memory"), "256Mi");
  EXPECT_EQ(at(doc, "/spec/schedulerName"), "default-scheduler");
  EXPECT_EQ(at(doc, "/spec/restartPolicy"), "Always");
  EXPECT_TRUE(absent(doc, "/spec/nodeName"));
}

TEST(KubeObjectsJsonTest, ATracePodCarriesItsLabelsAndItsControllersReference) {
  const Trace trace = one_pod_trace(OwnerKind::replicaset);
  const auto model = trace_pod(trace, trace.pods[0], "uid-1");
  EXPECT_EQ(model.ns, "shop");
  EXPECT_EQ(model.labels, pod_labels(trace, trace.pods[0], "uid-1"));
  ASSERT_TRUE(model.owner.has_value());
  EXPECT_EQ(model.owner->kind, "ReplicaSet");
  EXPECT_EQ(model.owner->name, "web-5d8f7");
  EXPECT_EQ(model.owner->uid, "uid-1");
  EXPECT_TRUE(model.node.empty());
  EXPECT_EQ(model.generate_name, "web-5d8f7-");
  const Trace bare = one_pod_trace(OwnerKind::none);
  EXPECT_FALSE(trace_pod(bare, bare.pods[0], "").owner.has_value());
}

TEST(KubeObjectsJsonTest, AJobsPodNeverRestartsAndNamesItsBatchOwner) {
  const auto doc = parsed(pod({.ns = "ci",
                               .name = "build-x7k2p",
                               .labels = {{"app", "build"}},
                               .owner = owner_reference(OwnerKind::job, "build", "uid-3"),
                               .scheduler_name = "default-scheduler"}));
  EXPECT_EQ(at(doc, "/metadata/ownerReferences/0/kind"), "Job");
  EXPECT_EQ(at(doc, "/metadata/ownerReferences/0/apiVersion"), "batch/v1");
  EXPECT_EQ(at(doc, "/spec/restartPolicy"), "Never");
}

TEST(KubeObjectsJsonTest, AnOwnerlessPodHasNoReferenceAndABoundOneItsNode) {
  EXPECT_FALSE(owner_reference(OwnerKind::none, "ci", "uid-2").has_value());
  const auto doc = parsed(pod({.ns = "default",
                               .name = "ci-runner-1",
                               .node = "node-07",
                               .labels = {{"app", "ci"}},
                               .scheduler_name = "harness"}));
  EXPECT_TRUE(absent(doc, "/metadata/ownerReferences"));
  EXPECT_EQ(at(doc, "/spec/nodeName"), "node-07");
}

TEST(KubeObjectsJsonTest, AProjectsRunnersCarryItsNameWhenTheTraceLabelsThem) {
  Trace trace = one_pod_trace(OwnerKind::none);
  trace.deployments[0].project = "project-03";
  EXPECT_EQ(pod_labels(trace, trace.pods[0], ""), (Labels{{"app", "web"}}));
  trace.params.project_labels = true;
  const Labels labels = pod_labels(trace, trace.pods[0], "");
  EXPECT_EQ(labels, (Labels{{"app", "web"}, {"app.kubernetes.io/name", "project-03"}}));
  const auto doc = parsed(pod({.ns = "ci",
                               .name = trace.pods[0].name,
                               .generate_name = generate_name(trace, trace.pods[0]),
                               .labels = labels,
                               .scheduler_name = "harness"}));
  EXPECT_EQ(at(doc, "/metadata/labels/app.kubernetes.io~1name"), "project-03");
  EXPECT_EQ(at(doc, "/metadata/generateName"), "web-");
  // A pod with an owner keeps its owner's labels only.
  Trace owned = one_pod_trace(OwnerKind::replicaset);
  owned.params.project_labels = true;
  EXPECT_FALSE(pod_labels(owned, owned.pods[0], "u").contains("app.kubernetes.io/name"));
}

// The virtual-time loop keys pods as the collector does from the objects the real-time loop
// creates: every owner kind; bare pods by their project label, else their app label, else their
// generateName, else the second the API server stamps as their creationTimestamp.
TEST(KubeObjectsJsonTest, TheSimulatorsWorkloadKeyIsTheCollectorsForEveryTracePod) {
  struct Case {
    const char* scenario;
    bool app_label, generate_name;
  };
  for (const Case c :
       {Case{"mixed-owners", true, true}, Case{"ci-runners", true, true},
        Case{"ci-runners-labelled", true, true}, Case{"bare-bursts", false, true},
        Case{"bare-bursts", false, false}, Case{"ci-runners-labelled", false, false}}) {
    WorkloadParams params;
    params.seed = 3;
    params.duration_s = 120;
    ASSERT_EQ(apply_flag(params, "scenario", c.scenario), "");
    params.bare_app_label = c.app_label;
    params.bare_generate_name = c.generate_name;
    const Trace trace = generate_trace(params);
    ASSERT_GT(trace.pods.size(), 50U);
    std::size_t bare = 0;
    for (const PodSpec& spec : trace.pods) {
      const testing::kube::Pod object = trace_pod(trace, spec, "uid-" + spec.replicaset);
      auto doc = parsed(pod(object));
      rapidjson::Pointer("/metadata/uid").Set(doc, "the API server's");
      rapidjson::Pointer("/metadata/creationTimestamp")
          .Set(doc, testing::kube::rfc3339(object.created_s));
      const auto facts = collector::parse_pod(static_cast<const rapidjson::Value&>(doc));
      ASSERT_TRUE(facts) << spec.name;
      EXPECT_EQ(facts->workload, workload_key(spec, trace)) << c.scenario << " " << spec.name;
      if (spec.owner_kind == OwnerKind::none) ++bare;
    }
    EXPECT_GT(bare, 0U) << c.scenario;
  }
  // Labelled runners of one project share a key across pipelines; unlabelled ones do not.
  Trace trace = one_pod_trace(OwnerKind::none);
  trace.deployments[0].project = "project-03";
  EXPECT_EQ(workload_key(trace.pods[0], trace), "shop/label/web");
  trace.params.project_labels = true;
  EXPECT_EQ(workload_key(trace.pods[0], trace), "shop/label/project-03");
  // Without a label a runner is known by its generateName at most.
  trace.params.project_labels = false;
  trace.params.bare_app_label = false;
  EXPECT_EQ(pod_labels(trace, trace.pods[0], ""), Labels{});
  EXPECT_EQ(workload_key(trace.pods[0], trace), "shop/generateName/web-");
  // Without a generateName, by the second it was created in: t = 0 is 1700000000 (Unix).
  trace.params.bare_generate_name = false;
  EXPECT_EQ(generate_name(trace, trace.pods[0]), "");
  trace.pods[0].created_s = 61.5;
  EXPECT_EQ(creation_second(trace.pods[0]), 1'700'000'061);
  EXPECT_EQ(workload_key(trace.pods[0], trace), "shop/created/2023-11-14T22:14:21Z");
  trace.pods[0].created_s = -0.5;
  EXPECT_EQ(workload_key(trace.pods[0], trace), "shop/created/2023-11-14T22:13:19Z");
}

// What a trace's pods declare reaches the collector from the pod the real-time loop creates as the
// virtual-time loop gives it to its model: ceilings in bits per second on the pod, expected traffic
// in whole bytes per second, both read as bytes per second; a pod declaring nothing has no
// annotations.
TEST(KubeObjectsJsonTest, WhatATracePodDeclaresReachesTheCollectorAsTheSimulatorGivesIt) {
  WorkloadParams params;
  params.seed = 3;
  params.duration_s = 120;
  ASSERT_EQ(apply_flag(params, "scenario", "ci-runners"), "");
  params.ceiling_fraction = 0.5;
  params.declared_fraction = 0.5;
  const Trace trace = generate_trace(params);
  std::size_t ceilings = 0, rates = 0, silent = 0;
  for (const PodSpec& spec : trace.pods) {
    auto doc = parsed(pod(trace_pod(trace, spec, "")));
    rapidjson::Pointer("/metadata/uid").Set(doc, "the API server's");
    const auto facts = collector::parse_pod(static_cast<const rapidjson::Value&>(doc));
    ASSERT_TRUE(facts) << spec.name;
    EXPECT_NEAR(facts->receive_ceiling, spec.receive_ceiling, 0.0625) << spec.name;
    EXPECT_NEAR(facts->transmit_ceiling, spec.transmit_ceiling, 0.0625) << spec.name;
    EXPECT_NEAR(facts->annotated_rate, spec.declared_rate, 0.5) << spec.name;
    EXPECT_NEAR(facts->annotated_transmit_rate, spec.declared_transmit_rate, 0.5) << spec.name;
    ceilings += spec.receive_ceiling >= 0;
    rates += spec.declared_rate >= 0;
    if (spec.receive_ceiling < 0 && spec.declared_rate < 0) {
      ++silent;
      EXPECT_TRUE(absent(doc, "/metadata/annotations")) << spec.name;
    }
  }
  EXPECT_GT(ceilings, 0U);
  EXPECT_GT(rates, 0U);
  EXPECT_GT(silent, 0U);
  PodSpec spec = one_pod_trace(OwnerKind::none).pods[0];
  spec.receive_ceiling = 1.25e6;
  spec.transmit_ceiling = 125e3;
  spec.declared_rate = 250000.4;
  spec.declared_transmit_rate = 25000;
  EXPECT_EQ(pod_annotations(spec), (Labels{{"kubernetes.io/egress-bandwidth", "1000000"},
                                           {"kubernetes.io/ingress-bandwidth", "10000000"},
                                           {"netscore.io/expected-receive-rate", "250000"},
                                           {"netscore.io/expected-transmit-rate", "25000"}}));
}

TEST(KubeObjectsJsonTest, GenerateNameIsTheOwnersPrefixButNotAStatefulSets) {
  const auto generated = [](OwnerKind kind) {
    const Trace trace = one_pod_trace(kind);
    return generate_name(trace, trace.pods[0]);
  };
  EXPECT_EQ(generated(OwnerKind::replicaset), "web-5d8f7-");
  EXPECT_EQ(generated(OwnerKind::job), "web-");
  EXPECT_EQ(generated(OwnerKind::statefulset), "");
  EXPECT_EQ(generated(OwnerKind::none), "web-");
  EXPECT_TRUE(absent(parsed(pod({.ns = "a", .name = "web-0"})), "/metadata/generateName"));
}

TEST(KubeObjectsJsonTest, NodesAreReadyWithTheModelsCapacityAndUntainted) {
  const auto doc = parsed(node("node-03"));
  EXPECT_EQ(at(doc, "/metadata/name"), "node-03");
  EXPECT_EQ(at(doc, "/metadata/labels/kubernetes.io~1hostname"), "node-03");
  const auto status = parsed(node_ready_status(1677664800));
  EXPECT_EQ(at(status, "/status/allocatable/cpu"), "4");
  EXPECT_EQ(at(status, "/status/allocatable/memory"), "16Gi");
  EXPECT_EQ(at(status, "/status/allocatable/pods"), "110");
  EXPECT_EQ(at(status, "/status/capacity/cpu"), "4");
  EXPECT_EQ(at(status, "/status/conditions/0/type"), "Ready");
  EXPECT_EQ(at(status, "/status/conditions/0/status"), "True");
  EXPECT_EQ(at(status, "/status/conditions/0/lastTransitionTime"), "2023-03-01T10:00:00Z");
  const auto untainted = parsed(node_untainted());
  EXPECT_TRUE(rapidjson::Pointer("/spec/taints").Get(untainted)->IsNull());
}

TEST(KubeObjectsJsonTest, BindingsStatusAndRbac) {
  const auto binding_doc = parsed(binding("p", "node-01"));
  EXPECT_EQ(at(binding_doc, "/kind"), "Binding");
  EXPECT_EQ(at(binding_doc, "/metadata/name"), "p");
  EXPECT_EQ(at(binding_doc, "/target/kind"), "Node");
  EXPECT_EQ(at(binding_doc, "/target/name"), "node-01");

  const auto running = parsed(pod_running_status(1677664800));
  EXPECT_EQ(at(running, "/status/phase"), "Running");
  EXPECT_EQ(at(running, "/status/conditions/0/type"), "PodScheduled");
  EXPECT_EQ(at(running, "/status/conditions/0/lastTransitionTime"), "2023-03-01T10:00:00Z");

  const auto role = parsed(cluster_role(
      {.name = "netscore-collector",
       .rules = {{{"apiGroups", {""}}, {"resources", {"pods", "nodes"}}, {"verbs", {"list"}}}}}));
  EXPECT_EQ(at(role, "/kind"), "ClusterRole");
  EXPECT_EQ(at(role, "/rules/0/apiGroups/0"), "");
  EXPECT_EQ(at(role, "/rules/0/resources/1"), "nodes");
  const auto bound = parsed(cluster_role_binding("b", "netscore-collector", "bench-user"));
  EXPECT_EQ(at(bound, "/roleRef/kind"), "ClusterRole");
  EXPECT_EQ(at(bound, "/roleRef/name"), "netscore-collector");
  EXPECT_EQ(at(bound, "/subjects/0/kind"), "User");
  EXPECT_EQ(at(bound, "/subjects/0/name"), "bench-user");
  EXPECT_EQ(at(parsed(service_account("default")), "/kind"), "ServiceAccount");
  EXPECT_EQ(at(parsed(namespace_object("shop")), "/kind"), "Namespace");
}

}  // namespace
}  // namespace netscore::sim::kube_json
