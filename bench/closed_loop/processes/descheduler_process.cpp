#include "bench/closed_loop/processes/descheduler_process.h"

#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "bench/closed_loop/processes/control_plane_files.h"
#include "bench/closed_loop/processes/kube_objects_json.h"
#include "collector/pipeline/print_rules.h"
#include "common/duration.h"
#include "tests/support/prometheus_process.h"

namespace netscore::sim {
namespace {

using namespace std::chrono_literals;

constexpr auto kOpensslDeadline = 60s;
constexpr auto kDeschedulerStop = 10s;
// The overlay's token Secret (policy.yaml's authToken.secretReference) and its key.
constexpr const char* kNamespace = "descheduler";
constexpr const char* kTokenSecret = "descheduler-prometheus-token";

// A shipped Go duration divided by the time scale, in whole seconds (at least one).
std::int64_t scaled_seconds(const std::string& shipped, double time_scale,
                            const std::string& what) {
  const auto parsed = parse_prom_duration(shipped);
  if (!parsed) throw std::runtime_error(fmt::format("{}: cannot read \"{}\"", what, shipped));
  return std::max<std::int64_t>(
      1, std::llround(static_cast<double>(parsed->value.count()) / 1000.0 / time_scale));
}

// The lines of a log containing `text`.
unsigned count_lines(const std::string& log, const std::string& text) {
  std::ifstream in(log);
  unsigned count = 0;
  for (std::string line; std::getline(in, line);) count += line.find(text) != std::string::npos;
  return count;
}

}  // namespace

LoopbackCertificate::LoopbackCertificate() {
  testing::BinaryProcess openssl(testing::logged_program(
      {"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
       "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", tls().key_file, "-out",
       cert_file()},
      dir_.path + "/openssl.log"));
  if (openssl.wait_exit(kOpensslDeadline) != 0)
    throw std::runtime_error("openssl req failed:\n" +
                             testing::log_tail(dir_.path + "/openssl.log"));
}

DeschedulerProcess::DeschedulerProcess(const DeschedulerOptions& options,
                                       const ControlPlane& control_plane)
    : options_(options), control_plane_(control_plane) {
  const std::string deployment = read_file(options.overlay_dir + "/deployment.yaml");
  const std::string policy = read_file(options.overlay_dir + "/policy.yaml");
  interval_s_ = static_cast<double>(
      scaled_seconds(container_flag(deployment, "descheduling-interval"), options.time_scale,
                     "the overlay's --descheduling-interval"));
  min_pod_age_ = fmt::format("{}s", scaled_seconds(yaml_value(policy, "minPodAge"),
                                                   options.time_scale, "the overlay's minPodAge"));
  // thresholds comes before targetThresholds, each with its one MetricResource.
  const std::size_t low_at = policy.find(" thresholds:");
  const std::size_t target_at = policy.find("targetThresholds:");
  if (low_at == std::string::npos || target_at == std::string::npos || target_at < low_at)
    throw std::runtime_error("the overlay's policy: thresholds, then targetThresholds");
  low_points_ = yaml_value(policy.substr(low_at, target_at - low_at), "MetricResource");
  target_points_ = yaml_value(policy.substr(target_at), "MetricResource");
  // The thresholds are points of the series the policy reads: the collector must classify on it.
  const std::string query = yaml_value(policy, "query");
  if (query == collector::kRelativeUtilisationRecord) {
    figure_ = "relative";
  } else if (query == collector::kUtilisationRecord) {
    figure_ = "absolute";
  } else {
    throw std::runtime_error("the overlay's policy reads " + query +
                             ", no series netscore records");
  }
  control_plane.apply(read_file(options.overlay_dir + "/namespace.yaml"));
  control_plane.apply(read_file(options.overlay_dir + "/rbac.yaml"));
  // The collector's half of the overlay: its patch of pods (the component's binding names the
  // ServiceAccounts of a cluster; here the collector's user gets the same role).
  if (options.nominating)
    control_plane.bind_collector(read_file(options.overlay_dir + "/collector/rbac.yaml"));
  // Prometheus here checks no token; the descheduler still reads and sends the Secret's.
  const auto reply = control_plane.admin().post(
      fmt::format("/api/v1/namespaces/{}/secrets", kNamespace),
      kube_json::secret(kTokenSecret, "prometheusAuthToken", "closed-loop-bench"));
  if (reply.status != 201) {
    throw std::runtime_error(fmt::format("creating the Secret {}: http status {}: {}", kTokenSecret,
                                         reply.status, reply.body.substr(0, 300)));
  }
  write_file(file("policy.yaml"),
             descheduler_policy(policy, {.prometheus_url = "https://127.0.0.1",
                                         .min_pod_age = min_pod_age_,
                                         .label_selector = options.nominating}));
}

DeschedulerProcess::~DeschedulerProcess() {
  if (process_) process_->stop(kDeschedulerStop);
}

void DeschedulerProcess::start(const std::string& prometheus_ca) {
  // The service-account directory exists for the descheduler only: a tmpfs over /run in its own
  // mount namespace, the CA copied in, then exec, so that its PID is the one stopped.
  const std::string in_namespace =
      "mount -t tmpfs tmpfs /run && mkdir -p /run/secrets/kubernetes.io/serviceaccount && "
      "cp \"$0\" /run/secrets/kubernetes.io/serviceaccount/ca.crt && exec \"$@\"";
  process_.emplace(testing::logged_program(
      {"unshare", "--mount", "--propagation", "private", "sh", "-c", in_namespace, prometheus_ca,
       options_.binary_dir + "/descheduler",
       "--kubeconfig=" + control_plane_.descheduler_kubeconfig(),
       "--policy-config-file=" + file("policy.yaml"),
       fmt::format("--descheduling-interval={}s", static_cast<long>(interval_s_)),
       "--bind-address=127.0.0.1", fmt::format("--secure-port={}", testing::free_local_port()),
       "--cert-dir=" + file("serving-certs"), "--v=3"},
      file("descheduler.log")));
  if (process_->wait_exit(3s) >= 0) {
    throw std::runtime_error("the descheduler exited at once:\n" +
                             testing::log_tail(file("descheduler.log")));
  }
}

Environment DeschedulerProcess::collector_env() const {
  if (!options_.nominating) return {};
  return {{"NETSCORE_REBALANCE_LABEL", "true"},
          {"NETSCORE_REBALANCE_MIN_POD_AGE", min_pod_age_},
          {"NETSCORE_REBALANCE_UTILISATION", figure_},
          {"NETSCORE_REBALANCE_TARGET_POINTS", target_points_},
          {"NETSCORE_REBALANCE_LOW_POINTS", low_points_}};
}

std::string DeschedulerProcess::summary() const {
  const std::string log = file("descheduler.log");
  return fmt::format(
      "descheduler (every {:.0f} s, minPodAge {}): {} cycles classified nodes ({} found none "
      "under, {} none over), {} evictions logged, {} Prometheus errors",
      interval_s_, min_pod_age_, count_lines(log, "Number of overutilized nodes"),
      count_lines(log, "No node is underutilized"),
      count_lines(log, "All nodes are under target utilization"),
      count_lines(log, "\"Evicted pod\""), count_lines(log, "error getting node usage"));
}

}  // namespace netscore::sim
