#include "bench/closed_loop/processes/control_plane_files.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace netscore::sim {
namespace {

std::string shipped(const std::string& path) {
  std::ifstream in(std::string(NETSCORE_DEPLOY_DIR) + "/" + path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_TRUE(in) << path;
  return text.str();
}

const std::string kSchedulerConfig = "overlays/control-plane/kube-scheduler-config.yaml";

bool has_line(const std::string& text, const std::string& line) {
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) {
    if (l == line) return true;
  }
  return false;
}

// Every line of `text` with `key:` (ignoring indentation, list dashes and comments).
std::string value_line(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  std::string found;
  for (std::string l; std::getline(lines, l);) {
    const auto start = l.find_first_not_of(" -");
    if (start != std::string::npos && l.compare(start, key.size() + 1, key + ":") == 0) found = l;
  }
  return found;
}

TEST(RequireLoopbackTest, AcceptsOnly127001) {
  EXPECT_NO_THROW(require_loopback("http://127.0.0.1:8888"));
  EXPECT_NO_THROW(require_loopback("https://127.0.0.1:6443/api"));
  EXPECT_NO_THROW(require_loopback("https://127.0.0.1"));
  for (const char* url :
       {"http://localhost:8888", "http://10.0.0.1:8888", "http://0.0.0.0:1", "https://[::1]:6443",
        "http://127.0.0.10:80", "http://127.0.0.1.example.com:80", "127.0.0.1:8888",
        "http://user@127.0.0.1:1", ""}) {
    EXPECT_THROW(require_loopback(url), std::invalid_argument) << url;
  }
}

TEST(SchedulerConfigTest, NetscoreKeepsTheShippedExtenderAndAdaptsOnlyUrlKubeconfigAndLeader) {
  const std::string file = shipped(kSchedulerConfig);
  const std::string config = scheduler_config(
      file,
      {.kubeconfig = "/tmp/x/kube-scheduler.kubeconfig", .extender_url = "http://127.0.0.1:4242"});
  EXPECT_EQ(value_line(config, "kubeconfig"), "  kubeconfig: /tmp/x/kube-scheduler.kubeconfig");
  EXPECT_EQ(value_line(config, "leaderElect"), "  leaderElect: false");
  EXPECT_EQ(value_line(config, "urlPrefix"), "  - urlPrefix: \"http://127.0.0.1:4242\"");
  // Everything that decides scoring is as shipped.
  for (const char* key :
       {"weight", "httpTimeout", "prioritizeVerb", "filterVerb", "nodeCacheCapable", "ignorable",
        "enableHTTPS", "schedulerName", "apiVersion", "kind"}) {
    EXPECT_EQ(value_line(config, key), value_line(file, key)) << key;
  }
  EXPECT_EQ(value_line(config, "weight"), "    weight: 3");
  EXPECT_EQ(value_line(config, "ignorable"), "    ignorable: true");
  EXPECT_EQ(value_line(config, "nodeCacheCapable"), "    nodeCacheCapable: true");
  // Nothing else changed: the same lines but the three edited ones.
  std::istringstream a(file), b(config);
  unsigned differing = 0, lines = 0;
  for (std::string x, y; std::getline(a, x) && std::getline(b, y); ++lines) differing += x != y;
  EXPECT_EQ(differing, 3U);
  EXPECT_EQ(lines, std::count(file.begin(), file.end(), '\n'));
}

TEST(SchedulerConfigTest, APolicyWeightReplacesTheShippedOne) {
  const std::string config =
      scheduler_config(shipped(kSchedulerConfig),
                       {.kubeconfig = "k", .extender_url = "http://127.0.0.1:1", .weight = 1});
  EXPECT_EQ(value_line(config, "weight"), "    weight: 1");
}

TEST(SchedulerConfigTest, KubeSchedulerAloneHasNoExtenders) {
  const std::string file = shipped(kSchedulerConfig);
  const std::string config = scheduler_config(file, {.kubeconfig = "/k"});
  EXPECT_EQ(config.find("extenders"), std::string::npos);
  EXPECT_EQ(config.find("urlPrefix"), std::string::npos);
  EXPECT_EQ(config.find("weight"), std::string::npos);
  EXPECT_TRUE(has_line(config, "  - schedulerName: default-scheduler"));
  EXPECT_TRUE(has_line(config, "  leaderElect: false"));
  EXPECT_TRUE(has_line(config, "  kubeconfig: /k"));
}

TEST(SchedulerConfigTest, RefusesWhatItCannotEditSafely) {
  const std::string file = shipped(kSchedulerConfig);
  EXPECT_THROW(scheduler_config(file, {.kubeconfig = "k", .extender_url = "http://10.1.2.3:8888"}),
               std::invalid_argument);
  EXPECT_THROW(scheduler_config("apiVersion: v1\n", {.kubeconfig = "k"}), std::runtime_error);
  // Two extenders: which one is netscore is not the tool's guess to make.
  const std::string two = file + "  - urlPrefix: \"http://127.0.0.1:9999\"\n    weight: 1\n";
  EXPECT_THROW(scheduler_config(two, {.kubeconfig = "k", .extender_url = "http://127.0.0.1:1"}),
               std::runtime_error);
}

TEST(ClusterRoleTest, ReadsTheShippedCollectorRole) {
  const ClusterRoleSpec role = cluster_role(shipped("base/rbac.yaml"));
  EXPECT_EQ(role.name, "netscore-collector");
  ASSERT_EQ(role.rules.size(), 1U);
  const RbacRule expected{
      {"apiGroups", {""}}, {"resources", {"pods", "nodes"}}, {"verbs", {"get", "list", "watch"}}};
  EXPECT_EQ(role.rules[0], expected);
}

TEST(ClusterRoleTest, PicksTheClusterRoleAmongDocumentsAndReadsEveryRule) {
  const ClusterRoleSpec role = cluster_role(
      "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n---\n"
      "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: r\n"
      "rules:\n"
      "  # pods\n"
      "  - apiGroups: [\"\"]\n    resources: [pods]\n    verbs: ['get']\n"
      "  - nonResourceURLs: [\"/metrics\"]\n    verbs: [\"get\"]\n"
      "---\nkind: ClusterRoleBinding\n");
  EXPECT_EQ(role.name, "r");
  ASSERT_EQ(role.rules.size(), 2U);
  EXPECT_EQ(role.rules[0].at("resources"), std::vector<std::string>{"pods"});
  EXPECT_EQ(role.rules[0].at("verbs"), std::vector<std::string>{"get"});
  EXPECT_EQ(role.rules[1].at("nonResourceURLs"), std::vector<std::string>{"/metrics"});
}

TEST(ClusterRoleTest, RefusesWhatItDoesNotUnderstand) {
  EXPECT_THROW(cluster_role("kind: Role\nmetadata:\n  name: r\n"), std::runtime_error);
  EXPECT_THROW(cluster_role("kind: ClusterRole\nmetadata:\n  name: r\nrules:\n"
                            "  - apiGroups:\n      - \"\"\n"),
               std::runtime_error);
  EXPECT_THROW(cluster_role("kind: ClusterRole\nmetadata:\n  name: r\nrules:\n"
                            "  - apiGroups: [\"\"]\n    resources: [pods]\n"
                            "    verbs: [get]\n    labelSelector: [x]\n"),
               std::runtime_error);
  EXPECT_THROW(cluster_role("kind: ClusterRole\nmetadata:\n  name: r\n"), std::runtime_error);
}

TEST(KubeconfigTest, OneTokenUserOfALoopbackServer) {
  const std::string text = kubeconfig("https://127.0.0.1:6443", "/d/ca.crt", "abc");
  EXPECT_TRUE(has_line(text, "      server: https://127.0.0.1:6443"));
  EXPECT_TRUE(has_line(text, "      certificate-authority: /d/ca.crt"));
  EXPECT_TRUE(has_line(text, "      token: abc"));
  EXPECT_TRUE(has_line(text, "current-context: bench"));
  EXPECT_THROW(kubeconfig("https://192.168.1.1:6443", "/d/ca.crt", "abc"), std::invalid_argument);
}

TEST(TokenAuthLineTest, QuotesGroupsAndOmitsNone) {
  EXPECT_EQ(token_auth_line("t", "admin", {"system:masters", "x"}),
            "t,admin,admin,\"system:masters,x\"\n");
  EXPECT_EQ(token_auth_line("t", "system:kube-scheduler", {}),
            "t,system:kube-scheduler,system:kube-scheduler\n");
}

const std::string kDeschedulerOverlay = "overlays/descheduler/";

TEST(DeschedulerPolicyTest, OnlyTheUrlAndMinPodAgeChange) {
  const std::string policy = shipped(kDeschedulerOverlay + "policy.yaml");
  const std::string edited =
      descheduler_policy(policy, {.prometheus_url = "https://127.0.0.1", .min_pod_age = "80s"});
  EXPECT_EQ(yaml_value(edited, "url"), "https://127.0.0.1");
  EXPECT_EQ(yaml_value(edited, "minPodAge"), "80s");
  EXPECT_EQ(yaml_value(edited, "query"), yaml_value(policy, "query"));
  EXPECT_EQ(yaml_value(edited, "useDeviationThresholds"), "true");
  // Every other line as shipped: the same count, two differing.
  std::istringstream a(policy), b(edited);
  unsigned differing = 0, lines = 0;
  for (std::string x, y; std::getline(a, x) && std::getline(b, y); ++lines) differing += x != y;
  EXPECT_EQ(differing, 2U);
  EXPECT_GT(lines, 30U);
  EXPECT_THROW(descheduler_policy(
                   policy, {.prometheus_url = "https://prometheus.example", .min_pod_age = "1s"}),
               std::invalid_argument);
}

TEST(DeschedulerPolicyTest, WithoutACollectorTheLabelSelectorGoes) {
  const std::string policy = shipped(kDeschedulerOverlay + "policy.yaml");
  EXPECT_EQ(yaml_value(policy, "netscore.io/rebalance"), "evict");
  const std::string edited = descheduler_policy(
      policy,
      {.prometheus_url = "https://127.0.0.1", .min_pod_age = "80s", .label_selector = false});
  EXPECT_EQ(edited.find("labelSelector"), std::string::npos);
  EXPECT_EQ(edited.find("netscore.io/rebalance"), std::string::npos);
  // What followed it is kept.
  EXPECT_EQ(yaml_value(edited, "minPodAge"), "80s");
  EXPECT_EQ(yaml_value(edited, "nodeFit"), yaml_value(policy, "nodeFit"));
  EXPECT_EQ(yaml_value(edited, "minReplicas"), yaml_value(policy, "minReplicas"));
}

TEST(DeschedulerPolicyTest, ReadsTheShippedIntervalAndRefusesAmbiguity) {
  EXPECT_EQ(
      container_flag(shipped(kDeschedulerOverlay + "deployment.yaml"), "descheduling-interval"),
      "75s");
  EXPECT_THROW(container_flag("args:\n  - --a=1\n  - --a=2\n", "a"), std::runtime_error);
  EXPECT_THROW(container_flag("args:\n  - --b=1\n", "a"), std::runtime_error);
  EXPECT_THROW(yaml_value("a: 1\nb:\n  a: 2\n", "a"), std::runtime_error);
  EXPECT_THROW(yaml_value("b: 1\n", "a"), std::runtime_error);
}

TEST(ManifestDocumentsTest, SplitsTheShippedRbacIntoItsCollections) {
  const auto documents = manifest_documents(shipped(kDeschedulerOverlay + "rbac.yaml"));
  std::vector<std::string> paths;
  for (const auto& document : documents) paths.push_back(collection_path(document));
  const std::vector<std::string> expected{
      "/api/v1/namespaces/descheduler/serviceaccounts",
      "/apis/rbac.authorization.k8s.io/v1/clusterroles",
      "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      "/apis/rbac.authorization.k8s.io/v1/namespaces/descheduler/roles",
      "/apis/rbac.authorization.k8s.io/v1/namespaces/descheduler/rolebindings"};
  EXPECT_EQ(paths, expected);
  EXPECT_NE(documents[1].yaml.find("pods/eviction"), std::string::npos);
  EXPECT_EQ(documents[1].yaml.find("namespace: descheduler"), std::string::npos);
  const auto ns = manifest_documents(shipped(kDeschedulerOverlay + "namespace.yaml"));
  ASSERT_EQ(ns.size(), 1U);
  EXPECT_EQ(collection_path(ns[0]), "/api/v1/namespaces");
  EXPECT_THROW(collection_path({.kind = "Deployment", .ns = "a", .yaml = ""}), std::runtime_error);
  EXPECT_THROW(collection_path({.kind = "Role", .ns = "", .yaml = ""}), std::runtime_error);
}

TEST(RulesDocumentTest, TheRuleGroupOfPrintRulesOutput) {
  const std::string out =
      "collector log line\n# comment\ngroups:\n  - name: g\n    rules:\n      - record: r\n"
      "        expr: |-\n          up\n---\nmetricsUtilization:\n  source: Prometheus\n";
  EXPECT_EQ(
      rules_document(out),
      "groups:\n  - name: g\n    rules:\n      - record: r\n        expr: |-\n          up\n");
  EXPECT_THROW(rules_document("# FAIL: nothing\n"), std::runtime_error);
  EXPECT_THROW(rules_document("groups:\n  - name: g\n"), std::runtime_error);
}

}  // namespace
}  // namespace netscore::sim
