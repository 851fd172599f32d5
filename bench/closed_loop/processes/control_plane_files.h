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

// A kubeconfig for one bearer-token user of an HTTPS API server whose certificate `ca_file` holds.
std::string kubeconfig(const std::string& server, const std::string& ca_file,
                       const std::string& token);

// One line of kube-apiserver's --token-auth-file: token,user,uid[,"group,..."] (the user's name
// as its uid).
std::string token_auth_line(const std::string& token, const std::string& user,
                            const std::vector<std::string>& groups);

}  // namespace netscore::sim
