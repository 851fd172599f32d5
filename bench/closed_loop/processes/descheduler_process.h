#pragma once

#include <optional>
#include <string>

#include "bench/closed_loop/processes/control_plane.h"
#include "bench/closed_loop/processes/temp_dir.h"
#include "bench/closed_loop/processes/traffic_exporter.h"
#include "common/config.h"
#include "tests/support/binary_process.h"

// kubernetes-sigs/descheduler v0.33.0 as deploy/overlays/descheduler runs it, against the
// closed loop's real control plane and Prometheus: the overlay's Namespace, ServiceAccount and
// RBAC created as shipped (the descheduler authenticates as that ServiceAccount), its token Secret,
// its policy with the run's Prometheus URL, and its interval and DefaultEvictor's minPodAge
// divided by the run's time scale. Everything on 127.0.0.1, stopped by PID. Not thread-safe.
//
// What v0.33.0 insists on: the Prometheus URL is https and the CA is read from
// /var/run/secrets/kubernetes.io/serviceaccount/ca.crt. That file is given to the descheduler
// alone, in a mount namespace of its own (unshare, a tmpfs over /run), so that nothing on the host
// changes; hence root.
namespace netscore::sim {

// A self-signed certificate for 127.0.0.1 (an IP SAN: Go verifies an IP host against IP SANs),
// in a temporary directory removed on destruction. Throws std::runtime_error when openssl fails.
class LoopbackCertificate {
 public:
  LoopbackCertificate();

  ScrapingPrometheus::Tls tls() const { return {cert_file(), dir_.path + "/key.pem"}; }
  std::string cert_file() const { return dir_.path + "/cert.pem"; }

 private:
  TempDir dir_{"netscore-loopback-tls"};
};

struct DeschedulerOptions {
  std::string binary_dir;   // holds `descheduler`
  std::string overlay_dir;  // deploy/overlays/descheduler
  double time_scale = 1;
  // A netscore collector runs and nominates the pods to evict (collector_env()); without one the
  // policy's labelSelector goes, as nothing would match it.
  bool nominating = false;
};

class DeschedulerProcess {
 public:
  // Creates the overlay's objects and the token Secret (before any pod of the run, so that the
  // Namespace exists when its default ServiceAccount is made). Throws std::runtime_error.
  DeschedulerProcess(const DeschedulerOptions& options, const ControlPlane& control_plane);
  ~DeschedulerProcess();
  DeschedulerProcess(const DeschedulerProcess&) = delete;
  DeschedulerProcess& operator=(const DeschedulerProcess&) = delete;

  // Starts the binary against Prometheus on https://127.0.0.1 (port 443) whose certificate
  // `prometheus_ca` holds; throws std::runtime_error with its log tail when it exits at once.
  void start(const std::string& prometheus_ca);
  // The scaled descheduling interval.
  double interval_s() const { return interval_s_; }
  // With `nominating`: the collector's settings that nominate what this policy evicts (its
  // deviation thresholds, its scaled minPodAge); else none.
  Environment collector_env() const;
  // What its log says of the cycles: "N cycles, M evictions" from its own lines.
  std::string summary() const;

 private:
  std::string file(const std::string& name) const { return dir_.path + "/" + name; }

  DeschedulerOptions options_;
  const ControlPlane& control_plane_;
  TempDir dir_{"netscore-descheduler"};
  double interval_s_ = 0;
  std::string min_pod_age_;
  std::string target_points_, low_points_;
  std::string figure_;  // NETSCORE_REBALANCE_UTILISATION for the policy's query
  std::optional<testing::BinaryProcess> process_;
};

}  // namespace netscore::sim
