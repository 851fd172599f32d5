#include "bench/closed_loop/processes/control_plane.h"

#include <curl/curl.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/pointer.h>

#include "bench/closed_loop/processes/control_plane_files.h"
#include "bench/closed_loop/processes/kube_objects_json.h"
#include "bench/prometheus_text/exposition.h"
#include "tests/support/eventually.h"
#include "tests/support/prometheus_process.h"

namespace netscore::sim {
namespace {

using namespace std::chrono_literals;
using testing::BinaryProcess;

constexpr auto kApiRequestTimeout = 10s;
// kube-apiserver takes tens of seconds to become ready on a loaded 2-core machine.
constexpr auto kControlPlaneStartup = 180s;
constexpr auto kControlPlaneStop = 10s;
// free_local_port() is racy: another process may take a port before the child binds it.
constexpr int kStartAttempts = 3;

const std::string kCollectorUser = "netscore-collector-bench";
// The descheduler overlay's ServiceAccount (deploy/overlays/descheduler/rbac.yaml): RBAC matches
// a ServiceAccount subject by this user name, so a static token under it gets exactly what the
// overlay's bindings grant.
const std::string kDeschedulerUser = "system:serviceaccount:descheduler:descheduler";

std::string random_token() {
  std::random_device device;
  std::string token;
  for (int i = 0; i < 4; ++i) token += fmt::format("{:08x}", device());
  return token;
}

std::string loopback_url(std::string_view scheme, std::uint16_t port) {
  const std::string url = fmt::format("{}://127.0.0.1:{}", scheme, port);
  require_loopback(url);
  return url;
}

// Starts `options()` (fresh ports each time) into `process` until `ready` holds while it runs;
// throws with the log's tail when no attempt gets there.
void start_ready(const std::string& name, std::optional<BinaryProcess>& process,
                 const std::function<BinaryProcess::Options()>& options,
                 const std::function<bool()>& ready, const std::string& log) {
  for (int attempt = 0; attempt < kStartAttempts; ++attempt) {
    process.emplace(options());
    bool exited = false;
    const bool up = testing::eventually(
        [&] {
          exited = !process->alive();
          return exited || ready();
        },
        kControlPlaneStartup);
    if (up && !exited) return;
    process.reset();  // SIGKILLs and reaps it
  }
  throw std::runtime_error(name + " did not start:\n" + testing::log_tail(log));
}

testing::ClientAuth trusting(const std::string& ca_file) {
  testing::ClientAuth auth;
  auth.ca_file = ca_file;
  return auth;
}

std::size_t append_to(char* data, std::size_t size, std::size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

void expect_created(const testing::HttpReply& reply, const std::string& what) {
  if (auto error = unexpected_status(reply, 201, "creating " + what); !error.empty())
    throw std::runtime_error(error);
}

}  // namespace

std::string unexpected_status(const testing::HttpReply& reply, long status,
                              const std::string& what) {
  if (reply.status == status) return {};
  return fmt::format("{}: http status {}: {}", what, reply.status, reply.body.substr(0, 500));
}

std::string register_node(const KubeApi& api, const std::string& name, std::int64_t now_s) {
  std::string error = unexpected_status(api.post("/api/v1/nodes", kube_json::node(name)), 201,
                                        "creating node " + name);
  if (error.empty()) {
    error = unexpected_status(
        api.patch("/api/v1/nodes/" + name + "/status", kube_json::node_ready_status(now_s)), 200,
        "node " + name + " status");
  }
  if (error.empty()) {
    error = unexpected_status(api.patch("/api/v1/nodes/" + name, kube_json::node_untainted()), 200,
                              "node " + name + " taints");
  }
  return error;
}

std::string create_namespace(const KubeApi& api, const std::string& ns) {
  if (ns != "default") {
    auto error = unexpected_status(api.post("/api/v1/namespaces", kube_json::namespace_object(ns)),
                                   201, "creating namespace " + ns);
    if (!error.empty()) return error;
  }
  return unexpected_status(api.post("/api/v1/namespaces/" + ns + "/serviceaccounts",
                                    kube_json::service_account("default")),
                           201, "creating the default ServiceAccount of " + ns);
}

std::string create_owner(const KubeApi& api, const Trace& trace, const PodSpec& pod,
                         unsigned replicas, std::string& uid) {
  const std::string what =
      fmt::format("creating {} {}", kube_json::owner_type(pod.owner_kind).kind, pod.replicaset);
  const auto reply = api.post(kube_json::owner_collection(pod.owner_kind, pod.ns),
                              kube_json::owner(trace, pod, replicas));
  if (auto error = unexpected_status(reply, 201, what); !error.empty()) return error;
  rapidjson::Document created;
  created.Parse(reply.body.c_str());
  const rapidjson::Value* value = rapidjson::Pointer("/metadata/uid").Get(created);
  if (value == nullptr || !value->IsString()) return what + ": no uid in the answer";
  uid = value->GetString();
  return {};
}

KubeApi::KubeApi(std::string url, std::string ca_file, std::string token)
    : url_(std::move(url)),
      ca_file_(std::move(ca_file)),
      authorization_("Authorization: Bearer " + token) {
  require_loopback(url_);
}

testing::HttpReply KubeApi::get(const std::string& path) const {
  return send("GET", path, {}, {});
}

testing::HttpReply KubeApi::post(const std::string& path, const std::string& body) const {
  return send("POST", path, body, "application/json");
}

testing::HttpReply KubeApi::post_yaml(const std::string& path, const std::string& body) const {
  return send("POST", path, body, "application/yaml");
}

testing::HttpReply KubeApi::patch(const std::string& path, const std::string& body) const {
  return send("PATCH", path, body, "application/merge-patch+json");
}

testing::HttpReply KubeApi::remove(const std::string& path) const {
  return send("DELETE", path + "?gracePeriodSeconds=0", {}, {});
}

testing::HttpReply KubeApi::send(std::string method, const std::string& path, std::string body,
                                 std::string content_type) const {
  // One easy handle per thread, reset before each request: curl_easy_reset keeps the handle's
  // live connections, so a burst of creations reuses one TLS connection instead of paying a
  // handshake each (which made the loop's events run up to 0.66 s late).
  thread_local const std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> handle(curl_easy_init(),
                                                                                &curl_easy_cleanup);
  testing::HttpReply reply;
  CURL* curl = handle.get();
  if (curl == nullptr) return reply;
  curl_easy_reset(curl);
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(nullptr,
                                                                      &curl_slist_free_all);
  const auto add_header = [&](const std::string& line) {
    headers.reset(curl_slist_append(headers.release(), line.c_str()));
  };
  add_header(authorization_);
  add_header("Accept: application/json");
  const std::string url = url_ + path;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CAINFO, ca_file_.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(std::chrono::milliseconds(kApiRequestTimeout).count()));
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &append_to);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &reply.headers);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, &append_to);
  if (method == "POST" || !body.empty()) {
    add_header("Content-Type: " + content_type);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  if (method != "GET" && method != "POST")
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.get());
  if (curl_easy_perform(curl) != CURLE_OK) return {};
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
  return reply;
}

ControlPlane::ControlPlane(const std::string& kube_bin, const std::string& rbac_manifest)
    : kube_bin_(kube_bin) {
  write_credentials();
  start_etcd();
  start_apiserver();
  write_file(descheduler_kubeconfig_, kubeconfig(url_, ca_file_, descheduler_token_));
  bind_collector(rbac_manifest);
}

ControlPlane::~ControlPlane() {
  if (scheduler_) scheduler_->stop(kControlPlaneStop);
  if (apiserver_) apiserver_->stop(kControlPlaneStop);
  if (etcd_) etcd_->stop(kControlPlaneStop);
}

void ControlPlane::write_credentials() {
  admin_token_ = random_token();
  scheduler_token_ = random_token();
  const std::string collector_token = random_token();
  descheduler_token_ = random_token();
  write_file(file("tokens.csv"),
             token_auth_line(admin_token_, "bench-admin", {"system:masters"}) +
                 token_auth_line(scheduler_token_, "system:kube-scheduler", {}) +
                 token_auth_line(collector_token, kCollectorUser, {}) +
                 token_auth_line(descheduler_token_, kDeschedulerUser,
                                 {"system:serviceaccounts", "system:serviceaccounts:descheduler"}));
  admin_token_file_ = file("admin.token");
  write_file(admin_token_file_, admin_token_);
  collector_token_file_ = file("collector.token");
  write_file(collector_token_file_, collector_token);
  // The service-account token signer v1.26 requires; a private key serves as the verifying key
  // too.
  BinaryProcess openssl(testing::logged_program(
      {"openssl", "genrsa", "-out", file("service-account.key"), "2048"}, file("openssl.log")));
  if (openssl.wait_exit(kControlPlaneStartup) != 0)
    throw std::runtime_error("openssl genrsa failed:\n" + testing::log_tail(file("openssl.log")));
  ca_file_ = file("apiserver-certs/apiserver.crt");
  scheduler_kubeconfig_ = file("kube-scheduler.kubeconfig");
  descheduler_kubeconfig_ = file("descheduler.kubeconfig");
}

void ControlPlane::apply(const std::string& manifests) const {
  const KubeApi api = admin();
  for (const auto& document : manifest_documents(manifests))
    expect_created(api.post_yaml(collection_path(document), document.yaml), document.kind);
}

void ControlPlane::start_etcd() {
  const std::string log = file("etcd.log");
  start_ready(
      "etcd", etcd_,
      [&] {
        // A failed attempt may have initialised the data directory for its own peer URL.
        std::error_code ignored;
        std::filesystem::remove_all(file("etcd"), ignored);
        etcd_url_ = loopback_url("http", testing::free_local_port());
        const std::string peer = loopback_url("http", testing::free_local_port());
        return testing::logged_program(
            {"/usr/bin/etcd", "--name=bench", "--data-dir=" + file("etcd"),
             "--listen-client-urls=" + etcd_url_, "--advertise-client-urls=" + etcd_url_,
             "--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer,
             "--initial-cluster=bench=" + peer, "--logger=zap", "--log-level=warn"},
            log);
      },
      [&] { return testing::http_get(etcd_url_ + "/health", 1s).status == 200; }, log);
}

void ControlPlane::start_apiserver() {
  const std::string log = file("kube-apiserver.log");
  start_ready(
      "kube-apiserver", apiserver_,
      [&] {
        const std::uint16_t port = testing::free_local_port();
        url_ = loopback_url("https", port);
        const std::string key = file("service-account.key");
        return testing::logged_program(
            {kube_bin_ + "/kube-apiserver", "--etcd-servers=" + etcd_url_,
             "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
             "--secure-port=" + std::to_string(port), "--cert-dir=" + file("apiserver-certs"),
             "--authorization-mode=Node,RBAC", "--token-auth-file=" + file("tokens.csv"),
             "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
             "--service-account-key-file=" + key, "--service-account-signing-key-file=" + key,
             "--service-cluster-ip-range=10.0.0.0/24",
             // The reconciler would publish the loopback address as the kubernetes Service's
             // endpoint, which Endpoints validation refuses; nothing here uses that Service.
             "--endpoint-reconciler-type=none", "--profiling=false"},
            log);
      },
      [&] { return admin().get("/readyz").status == 200; }, log);
  // The bootstrap controller creates the default namespace shortly after readiness.
  if (!testing::eventually([&] { return admin().get("/api/v1/namespaces/default").status == 200; },
                           kControlPlaneStartup))
    throw std::runtime_error("kube-apiserver never created the default namespace");
}

void ControlPlane::bind_collector(const std::string& rbac_manifest) const {
  const ClusterRoleSpec role = cluster_role(rbac_manifest);
  const KubeApi api = admin();
  expect_created(
      api.post("/apis/rbac.authorization.k8s.io/v1/clusterroles", kube_json::cluster_role(role)),
      "ClusterRole " + role.name);
  expect_created(
      api.post("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
               kube_json::cluster_role_binding(role.name + "-bench", role.name, kCollectorUser)),
      "ClusterRoleBinding for " + kCollectorUser);
}

void ControlPlane::start_scheduler(const std::string& configuration, std::size_t nodes) {
  write_file(scheduler_kubeconfig_, kubeconfig(url_, ca_file_, scheduler_token_));
  write_file(file("kube-scheduler-config.yaml"), configuration);
  const std::string log = file("kube-scheduler.log");
  const auto cache_holds_nodes = [&] {
    if (testing::http_request({.url = loopback_url("https", scheduler_port_) + "/healthz",
                               .timeout = 1s,
                               .auth = trusting(file("scheduler-certs/kube-scheduler.crt"))})
            .status != 200)
      return false;
    const auto cached =
        prometheus_text::value(prometheus_text::parse(scheduler_metrics()),
                               "scheduler_scheduler_cache_size", {{"type", "nodes"}});
    return cached && *cached == static_cast<double>(nodes);
  };
  start_ready(
      "kube-scheduler", scheduler_,
      [&] {
        scheduler_port_ = testing::free_local_port();
        // Its authentication and authorization kubeconfigs let the admin read /metrics.
        return testing::logged_program(
            {kube_bin_ + "/kube-scheduler", "--config=" + file("kube-scheduler-config.yaml"),
             "--bind-address=127.0.0.1", "--secure-port=" + std::to_string(scheduler_port_),
             "--cert-dir=" + file("scheduler-certs"), "--leader-elect=false",
             "--authentication-kubeconfig=" + scheduler_kubeconfig_,
             "--authorization-kubeconfig=" + scheduler_kubeconfig_},
            log);
      },
      cache_holds_nodes, log);
}

std::string ControlPlane::scheduler_metrics() const {
  if (scheduler_port_ == 0) return {};
  const auto reply =
      testing::http_request({.url = loopback_url("https", scheduler_port_) + "/metrics",
                             .headers = {"Authorization: Bearer " + admin_token_},
                             .timeout = kApiRequestTimeout,
                             .auth = trusting(file("scheduler-certs/kube-scheduler.crt"))});
  return reply.status == 200 ? reply.body : std::string();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) throw std::runtime_error("cannot read " + path);
  return text.str();
}

}  // namespace netscore::sim
