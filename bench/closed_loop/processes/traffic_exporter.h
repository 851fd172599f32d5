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

#include "tests/support/binary_process.h"

// The real-time level's node traffic: node_exporter-like receive and transmit counters per node
// (and its link speed gauge when it has one), served on 127.0.0.1 for a real Prometheus to
// scrape, grown by the true rates the placements produce.
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
                  std::vector<double> speed);
  TrafficExporter(const TrafficExporter&) = delete;
  TrafficExporter& operator=(const TrafficExporter&) = delete;
  ~TrafficExporter();

  std::string target() const { return "127.0.0.1:" + std::to_string(port_); }

  // A pod that has been running all along: counts from now.
  void add_running(std::uint32_t pod, std::size_t node, double receive, double transmit);
  // A pod just bound: counts from the next scrape.
  void start_pod(std::uint32_t pod, std::size_t node, double receive, double transmit);
  // Deleted: stops counting now (or never starts).
  void stop_pod(std::uint32_t pod);

  // The true per-node rates now (pods waiting for their first scrape not included).
  struct Rates {
    std::vector<double> receive, transmit;
  };
  Rates rates() const;
  std::uint64_t scrapes() const;

 private:
  struct Pod {
    std::size_t node = 0;
    double receive = 0, transmit = 0;
    bool counting = false;
  };
  using Clock = std::chrono::steady_clock;

  void serve();
  // The /metrics body; starts the pods waiting for a scrape.
  std::string scrape();
  // Callers hold mutex_.
  void advance(std::size_t node, Clock::time_point now);
  void add_rates(const Pod& pod, double sign);

  std::vector<std::string> nodes_;
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

// Prometheus 2.42 (in PATH) on 127.0.0.1 scraping one target every scrape_s, with its own
// temporary TSDB; stopped by PID and its directory removed on destruction. Not thread-safe.
class ScrapingPrometheus {
 public:
  // Throws std::runtime_error with Prometheus' log tail when it does not become ready.
  ScrapingPrometheus(const std::string& target, double scrape_s);
  ScrapingPrometheus(const ScrapingPrometheus&) = delete;
  ScrapingPrometheus& operator=(const ScrapingPrometheus&) = delete;
  ~ScrapingPrometheus();

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  // Removed on every exit path, a failed start included.
  struct TempDir {
    TempDir();
    ~TempDir();
    std::string path;
  };

  std::string log() const { return dir_.path + "/prometheus.log"; }
  void try_start(std::uint16_t port);

  TempDir dir_;
  std::uint16_t port_ = 0;
  std::optional<testing::BinaryProcess> process_;
};

// A Prometheus duration ("1s", "900ms"), whole seconds when exact as the shipped defaults are
// written.
std::string duration_text(std::int64_t ms);

}  // namespace netscore::sim
