#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// The files the real control plane of the closed loop is configured with, derived from the files
// the project ships so that the benchmark runs what an operator installs: kube-scheduler's
// configuration (deploy/overlays/control-plane/kube-scheduler-config.yaml) and the collector's
// ClusterRole (deploy/base/rbac.yaml). The shipped files are YAML; no YAML library is among the
// build dependencies, so they are edited and read line by line, and anything these functions do
// not recognise throws std::runtime_error rather than being passed on half-understood. Pure.
namespace netscore::sim {

// Throws std::invalid_argument unless `url` is http(s)://127.0.0.1[:port][/...]: every part of
// the benchmark's control plane talks over the loopback only.
void require_loopback(std::string_view url);

struct SchedulerConfigEdits {
  std::string kubeconfig;
  // The extender's base URL (loopback); nullopt drops the extenders section, leaving
  // kube-scheduler's default plugins alone.
  std::optional<std::string> extender_url{};
  // Replaces the shipped weight, for policies that name another one; nullopt keeps it.
  std::optional<std::int64_t> weight{};
};

// The shipped KubeSchedulerConfiguration with its kubeconfig path, the extender's urlPrefix (or
// no extenders) and leader election off; every other line as shipped. kube-scheduler ignores
// --kubeconfig and reads clientConnection.kubeconfig once --config is given (v1.26
// cmd/kube-scheduler/app/options), hence the edit of the file.
std::string scheduler_config(std::string_view shipped, const SchedulerConfigEdits& edits);

// One PolicyRule: "apiGroups", "resources", "verbs", "resourceNames" or "nonResourceURLs" to its
// values.
using RbacRule = std::map<std::string, std::vector<std::string>>;

struct ClusterRoleSpec {
  std::string name;
  std::vector<RbacRule> rules;
};

// The ClusterRole document of a manifest file: its metadata.name and its rules, written as the
// shipped file writes them (flow lists: `verbs: ["get", "list"]`).
ClusterRoleSpec cluster_role(std::string_view manifests);

// The descheduler overlay (deploy/overlays/descheduler) as the benchmark runs it: its policy with
// the run's Prometheus URL (https on 127.0.0.1, port 443, no port in the URL, as the descheduler
// verifies the certificate against the URL's host with its port) and DefaultEvictor's minPodAge
// scaled by the run's time scale; every other line as shipped, but DefaultEvictor's labelSelector
// when no collector labels the pods it selects (a run without netscore).
struct DeschedulerEdits {
  std::string prometheus_url;
  std::string min_pod_age;  // a Go duration: "80s"
  bool label_selector = true;
};
std::string descheduler_policy(std::string_view shipped, const DeschedulerEdits& edits);

// The value of the one line "key: value" of a YAML text ("20m" for minPodAge); throws when there
// is none or more than one.
std::string yaml_value(std::string_view text, std::string_view key);
// The value of the one container argument "- --flag=value" of a manifest ("10m" for
// descheduling-interval); throws when there is none or more than one.
std::string container_flag(std::string_view manifest, std::string_view flag);

// One document of a manifest file, as the API server takes it (it reads YAML request bodies).
struct ManifestDocument {
  std::string kind;
  std::string ns;  // metadata.namespace; empty for a cluster-scoped object
  std::string yaml;
};
// The documents between "---" lines that declare a kind.
std::vector<ManifestDocument> manifest_documents(std::string_view manifests);
// The collection a document is created in (POST): Namespaces, ServiceAccounts and the RBAC kinds;
// throws for another kind.
std::string collection_path(const ManifestDocument& document);

// The rule group of `netscore-collector --print-rules`' output: from its "groups:" line to the
// "---" line after it, a Prometheus rule file. Throws when the output has none.
std::string rules_document(std::string_view print_rules_output);

// A kubeconfig for one bearer-token user of an HTTPS API server whose certificate `ca_file` holds.
std::string kubeconfig(const std::string& server, const std::string& ca_file,
                       const std::string& token);

// One line of kube-apiserver's --token-auth-file: token,user,uid[,"group,..."] (the user's name
// as its uid).
std::string token_auth_line(const std::string& token, const std::string& user,
                            const std::vector<std::string>& groups);

}  // namespace netscore::sim
