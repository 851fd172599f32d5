#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/ip/tcp.hpp>

#include "bench/closed_loop/placement/policy.h"
#include "bench/closed_loop/processes/temp_dir.h"
#include "tests/support/binary_process.h"
#include "tests/support/http_client.h"

// The real-time level's node traffic: node_exporter-like receive and transmit counters per node
// (and its link speed gauge when it has one) on /metrics, served on 127.0.0.1 for a real
// Prometheus to scrape, grown by the true rates the placements produce; and, unless PodSeries is
// none, each counting pod's own counters as the kubelets' cAdvisor endpoints export them
// (cadvisor_series.h) on /metrics/cadvisor, scraped as a second job.
// The virtual-time level's rule that a pod's traffic starts one scrape after its binding (its
// containers start meanwhile) is kept by counting a pod from the first scrape the exporter serves
// after start_pod: what Prometheus shows a policy and what the balance metrics count stay one
// model. Thread-safe: the scheduler loop changes rates while Prometheus scrapes.
//
// tests/support's PrometheusProcess serves backfilled data; ScrapingPrometheus scrapes the
// exporter live, so what the collector gets back went through real scrapes, staleness and range
// selection.
namespace netscore::sim {

class TrafficExporter {
 public:
  // Per node and direction: a constant background rate (bytes/s) and the counter's value at
  // construction.
  struct Direction {
    std::vector<double> background, counter_start;
  };
  // Per node: its name, its link speed (bytes/s; not positive: no speed series).
  TrafficExporter(std::vector<std::string> nodes, Direction receive, Direction transmit,
                  std::vector<double> speed, PodSeries pod_series);
  TrafficExporter(const TrafficExporter&) = delete;
  TrafficExporter& operator=(const TrafficExporter&) = delete;
  ~TrafficExporter();

  std::string target() const { return "127.0.0.1:" + std::to_string(port_); }

  // A pod's true rates (bytes/s) on its node, and the names its cAdvisor series carry.
  struct PodTraffic {
    std::string ns = "default";
    std::string name;
    std::size_t node = 0;
    double receive = 0, transmit = 0;
  };
  // A pod that has been running all along: counts from now.
  void add_running(std::uint32_t pod, PodTraffic traffic);
  // A pod just bound: counts from the next scrape of /metrics.
  void start_pod(std::uint32_t pod, PodTraffic traffic);
  // Deleted: stops counting now (or never starts).
  void stop_pod(std::uint32_t pod);
  // Its workload's traffic drifted: both its rates times `factor` from now (nothing if unknown).
  void rescale_pod(std::uint32_t pod, double factor);

  // The true per-node rates now (pods waiting for their first scrape not included).
  struct Rates {
    std::vector<double> receive, transmit;
  };
  Rates rates() const;
  std::uint64_t scrapes() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Pod {
    PodTraffic traffic;
    bool counting = false;
    // Its own counters (bytes since it started counting) and when they were last grown: a
    // counter that only grows whatever its rates do.
    double received = 0, transmitted = 0;
    Clock::time_point counted_to{};
  };

  void serve();
  // The /metrics body; starts the pods waiting for a scrape.
  std::string scrape();
  // The /metrics/cadvisor body: the counting pods' and the nodes' counters.
  std::string scrape_cadvisor();
  // Callers hold mutex_: every node counted up to now.
  Clock::time_point advance_all();
  // Callers hold mutex_.
  void advance(std::size_t node, Clock::time_point now);
  static void advance(Pod& pod, Clock::time_point now);
  void add_rates(const Pod& pod, double sign);
  // A counting pod's rates leave its node's from now.
  void stop_counting(const Pod& pod);

  std::vector<std::string> nodes_;
  PodSeries pod_series_;
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::uint16_t port_ = 0;

  mutable std::mutex mutex_;
  std::vector<double> speed_;
  std::vector<double> receive_, transmit_;  // rates now
  std::vector<double> receive_counter_, transmit_counter_;
  std::vector<Clock::time_point> counted_to_;
  std::map<std::uint32_t, Pod> pods_;
  std::vector<std::uint32_t> waiting_;  // started, not yet scraped
  std::uint64_t scrapes_ = 0;
  bool stopping_ = false;
  int connection_fd_ = -1;  // shut down by the destructor should a client hang

  std::thread thread_;
};

// Prometheus 2.42 (in PATH) on 127.0.0.1 scraping an exporter's target every scrape_s, with its
// own temporary TSDB; stopped by PID and its directory removed on destruction. Not thread-safe.
// Job "traffic" scrapes /metrics; unless `pod_series` is none, job "kubelet" scrapes
// /metrics/cadvisor with honor_labels, as kube-prometheus scrapes kubelets: the page's job,
// instance and node labels stay as written, and so do the namespace, pod, container, interface
// and id a per-pod query selects on. With `tls` it serves https on 127.0.0.1:443 with that
// certificate (what the descheduler reaches: it verifies the certificate against the URL's host
// with its port, so its URL has none) and loads a rule file that set_rules replaces.
class ScrapingPrometheus {
 public:
  struct Tls {
    std::string cert_file, key_file;
  };
  // Throws std::runtime_error with Prometheus' log tail when it does not become ready, and when
  // with `tls` 127.0.0.1:443 cannot be bound (taken, or not running as root).
  ScrapingPrometheus(const std::string& target, double scrape_s, PodSeries pod_series,
                     const std::optional<Tls>& tls = std::nullopt);
  ScrapingPrometheus(const ScrapingPrometheus&) = delete;
  ScrapingPrometheus& operator=(const ScrapingPrometheus&) = delete;
  ~ScrapingPrometheus();

  std::string url() const {
    return (tls_ ? "https" : "http") + std::string("://127.0.0.1:") + std::to_string(port_);
  }
  // Replaces the rule file and has Prometheus reload it (SIGHUP).
  void set_rules(const std::string& rules);
  // GET url() + path, trusting the certificate with `tls`.
  testing::HttpReply get(const std::string& path) const;

 private:
  std::string log() const { return dir_.path + "/prometheus.log"; }
  std::string rule_file() const { return dir_.path + "/rules.yml"; }
  void try_start(std::uint16_t port);

  TempDir dir_{"netscore-realtime"};
  std::optional<Tls> tls_;
  std::uint16_t port_ = 0;
  std::optional<testing::BinaryProcess> process_;
};

// A Prometheus duration ("1s", "900ms"), whole seconds when exact as the shipped defaults are
// written.
std::string duration_text(std::int64_t ms);

}  // namespace netscore::sim
