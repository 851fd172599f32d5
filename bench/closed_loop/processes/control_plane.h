#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>

#include "bench/closed_loop/processes/temp_dir.h"
#include "bench/closed_loop/workload/workload.h"
#include "common/config.h"
#include "tests/support/binary_process.h"
#include "tests/support/http_client.h"

// A real Kubernetes control plane on 127.0.0.1 for the closed loop: etcd (Debian's
// /usr/bin/etcd), the user's own kube-apiserver and kube-scheduler (v1.26) binaries, each a child
// process in one temporary directory, stopped by PID (scheduler, API server, etcd) and the
// directory removed on destruction.
// The API server serves HTTPS on 127.0.0.1 with a certificate it signs itself, authorizes with
// Node,RBAC and authenticates static tokens: an admin (system:masters, the harness),
// system:kube-scheduler (bound by the bootstrap RBAC policy) and the collector's user, bound by
// the harness through the API to the ClusterRole the project ships (deploy/base/rbac.yaml), so
// that a collector that syncs proves the shipped role enough.
// Not emulated: kubelets, kube-controller-manager (no controller acts on any object), the
// service network. Not thread-safe.
namespace netscore::sim {

// Requests to the API server as one user, each with a timeout. Thread-safe: each thread sends
// through its own libcurl handle, which keeps its connections alive between requests.
class KubeApi {
 public:
  KubeApi(std::string url, std::string ca_file, std::string token);

  testing::HttpReply get(const std::string& path) const;
  testing::HttpReply post(const std::string& path, const std::string& body) const;
  // A YAML body, as kubectl would send a manifest's document.
  testing::HttpReply post_yaml(const std::string& path, const std::string& body) const;
  // A JSON merge patch (RFC 7386).
  testing::HttpReply patch(const std::string& path, const std::string& body) const;
  // Deleted at once (gracePeriodSeconds=0): no kubelet would ever confirm a graceful deletion.
  testing::HttpReply remove(const std::string& path) const;

 private:
  testing::HttpReply send(std::string method, const std::string& path, std::string body,
                          std::string content_type) const;

  std::string url_;
  std::string ca_file_;
  std::string authorization_;
};

// The wall clock in the API server's timestamps' whole seconds.
inline std::int64_t now_s() {
  return static_cast<std::int64_t>(std::time(nullptr));
}

// What the harness does in place of the controllers and kubelets it does not run. Each returns an
// error text, empty on success, so that worker threads can report it.
// A node registered as a kubelet registers it (Ready since `now_s`), its not-ready taint lifted as
// the node lifecycle controller would.
std::string register_node(const KubeApi& api, const std::string& name, std::int64_t now_s);
// Namespace `ns` (unless "default") and its default ServiceAccount, which the ServiceAccount
// admission plugin requires of a pod's namespace and kube-controller-manager would have created.
std::string create_namespace(const KubeApi& api, const std::string& ns);
// The owner of trace pod `pod` with `replicas` pods (kube_json::owner), its UID written to `uid`.
std::string create_owner(const KubeApi& api, const Trace& trace, const PodSpec& pod,
                         unsigned replicas, std::string& uid);
// "what: http status N: <the body's start>" when the reply's status is not `status`; empty if it
// is.
std::string unexpected_status(const testing::HttpReply& reply, long status,
                              const std::string& what);

class ControlPlane {
 public:
  // Starts etcd and kube-apiserver from `kube_bin`, waits for /readyz and creates the collector's
  // ClusterRole (from `rbac_manifest`, the shipped file's text) and its binding. Throws
  // std::runtime_error with the failing process' log tail.
  ControlPlane(const std::string& kube_bin, const std::string& rbac_manifest);
  ControlPlane(const ControlPlane&) = delete;
  ControlPlane& operator=(const ControlPlane&) = delete;
  ~ControlPlane();

  const std::string& url() const { return url_; }
  // The API server's certificate chain (its own CA included): what clients trust.
  const std::string& ca_file() const { return ca_file_; }
  KubeApi admin() const { return {url_, ca_file_, admin_token_}; }
  // The admin's settings for a watch of the harness' own.
  KubeConfig admin_kube() const {
    return {.url = url_, .token_file = admin_token_file_, .ca_file = ca_file_};
  }
  // The NETSCORE_KUBE_* settings the collector reaches the API server with, as its own user.
  Environment collector_env() const {
    return {{"NETSCORE_KUBE_API_URL", url_},
            {"NETSCORE_KUBE_TOKEN_FILE", collector_token_file_},
            {"NETSCORE_KUBE_CA_FILE", ca_file_}};
  }
  const std::string& scheduler_kubeconfig() const { return scheduler_kubeconfig_; }
  // The descheduler overlay's ServiceAccount (a static token under its user name): what it may do
  // is what the overlay's bindings grant once apply() has created them.
  const std::string& descheduler_kubeconfig() const { return descheduler_kubeconfig_; }
  // Creates, as the admin, every document of a manifest file (Namespaces, ServiceAccounts, RBAC:
  // control_plane_files.h's collection_path). Throws std::runtime_error on a refusal.
  void apply(const std::string& manifests) const;
  // Creates the ClusterRole of a manifest file and binds it to the collector's user (the
  // constructor does so with the collector's read-only role). Throws as apply().
  void bind_collector(const std::string& rbac_manifest) const;

  // Starts kube-scheduler with this KubeSchedulerConfiguration (its clientConnection.kubeconfig
  // scheduler_kubeconfig()) and waits until its cache holds `nodes` nodes. Throws as above.
  void start_scheduler(const std::string& configuration, std::size_t nodes);
  // kube-scheduler's /metrics, read as the admin; empty when not running or unanswered.
  std::string scheduler_metrics() const;

 private:
  std::string file(const std::string& name) const { return dir_.path + "/" + name; }
  void write_credentials();
  void start_etcd();
  void start_apiserver();

  // Declared first: removed after every process below is stopped.
  TempDir dir_{"netscore-control-plane"};
  std::string admin_token_, admin_token_file_, scheduler_token_, collector_token_file_;
  std::string descheduler_token_;
  std::string scheduler_kubeconfig_, descheduler_kubeconfig_;
  std::string etcd_url_, url_, ca_file_, kube_bin_;
  std::uint16_t scheduler_port_ = 0;
  std::optional<testing::BinaryProcess> etcd_, apiserver_, scheduler_;
};

// The whole file; throws std::runtime_error naming it when it cannot be read.
std::string read_file(const std::string& path);
// Replaces the file's content; throws std::runtime_error naming it when it cannot be written.
void write_file(const std::string& path, const std::string& text);

}  // namespace netscore::sim
