#include "bench/closed_loop/processes/traffic_exporter.h"

#include <fcntl.h>
#include <sys/socket.h>

#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>

#include "bench/closed_loop/processes/cadvisor_series.h"
#include "common/duration.h"
#include "tests/support/eventually.h"
#include "tests/support/http_client.h"
#include "tests/support/prometheus_process.h"

namespace netscore::sim {

namespace http = boost::beast::http;
using boost::asio::ip::tcp;

TrafficExporter::TrafficExporter(std::vector<std::string> nodes, Direction receive,
                                 Direction transmit, std::vector<double> speed,
                                 PodSeries pod_series)
    : nodes_(std::move(nodes)),
      pod_series_(pod_series),
      acceptor_(io_, tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0)),
      speed_(std::move(speed)),
      receive_(std::move(receive.background)),
      transmit_(std::move(transmit.background)),
      receive_counter_(std::move(receive.counter_start)),
      transmit_counter_(std::move(transmit.counter_start)),
      counted_to_(nodes_.size(), Clock::now()) {
  port_ = acceptor_.local_endpoint().port();
  // Prometheus and the netscore binaries are forked later: they must not inherit the listener.
  ::fcntl(acceptor_.native_handle(), F_SETFD, FD_CLOEXEC);
  thread_ = std::thread([this] { serve(); });
}

TrafficExporter::~TrafficExporter() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    if (connection_fd_ >= 0) ::shutdown(connection_fd_, SHUT_RDWR);
  }
  // Wakes the blocking accept().
  boost::system::error_code ignored;
  tcp::socket poke(io_);
  poke.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port_), ignored);
  thread_.join();
}

void TrafficExporter::advance(std::size_t node, Clock::time_point now) {
  const double seconds = std::chrono::duration<double>(now - counted_to_[node]).count();
  receive_counter_[node] += receive_[node] * seconds;
  transmit_counter_[node] += transmit_[node] * seconds;
  counted_to_[node] = now;
}

void TrafficExporter::advance(Pod& pod, Clock::time_point now) {
  const double seconds = std::chrono::duration<double>(now - pod.counted_to).count();
  pod.received += pod.traffic.receive * seconds;
  pod.transmitted += pod.traffic.transmit * seconds;
  pod.counted_to = now;
}

TrafficExporter::Clock::time_point TrafficExporter::advance_all() {
  const auto now = Clock::now();
  for (std::size_t n = 0; n < nodes_.size(); ++n) advance(n, now);
  return now;
}

void TrafficExporter::add_rates(const Pod& pod, double sign) {
  receive_[pod.traffic.node] += sign * pod.traffic.receive;
  transmit_[pod.traffic.node] += sign * pod.traffic.transmit;
}

void TrafficExporter::add_running(std::uint32_t pod, PodTraffic traffic) {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  advance(traffic.node, now);
  Pod running{.traffic = std::move(traffic), .counting = true, .counted_to = now};
  add_rates(running, 1);
  pods_[pod] = std::move(running);
}

void TrafficExporter::start_pod(std::uint32_t pod, PodTraffic traffic) {
  std::lock_guard lock(mutex_);
  pods_[pod] = {.traffic = std::move(traffic), .counting = false};
  waiting_.push_back(pod);
}

void TrafficExporter::stop_counting(const Pod& pod) {
  if (!pod.counting) return;
  advance(pod.traffic.node, Clock::now());
  add_rates(pod, -1);
}

void TrafficExporter::stop_pod(std::uint32_t pod) {
  std::lock_guard lock(mutex_);
  const auto it = pods_.find(pod);
  if (it == pods_.end()) return;
  stop_counting(it->second);
  pods_.erase(it);  // a waiting pod left in waiting_ is skipped at the scrape
}

void TrafficExporter::rescale_pod(std::uint32_t pod, double factor) {
  std::lock_guard lock(mutex_);
  const auto it = pods_.find(pod);
  if (it == pods_.end()) return;
  Pod& rescaled = it->second;
  // Its own counters grow at the old rates up to now, then at the new ones.
  if (rescaled.counting) advance(rescaled, Clock::now());
  stop_counting(rescaled);
  rescaled.traffic.receive *= factor;
  rescaled.traffic.transmit *= factor;
  if (rescaled.counting) add_rates(rescaled, 1);
}

TrafficExporter::Rates TrafficExporter::rates() const {
  std::lock_guard lock(mutex_);
  return {receive_, transmit_};
}

std::uint64_t TrafficExporter::scrapes() const {
  std::lock_guard lock(mutex_);
  return scrapes_;
}

std::string TrafficExporter::scrape() {
  std::lock_guard lock(mutex_);
  const auto now = advance_all();
  std::string body;
  // Integral bytes, as the kernel counts them.
  const auto counter = [&](std::string_view direction, const std::vector<double>& values) {
    fmt::format_to(std::back_inserter(body),
                   "# HELP node_network_{0}_bytes_total Network device statistic {0}_bytes.\n"
                   "# TYPE node_network_{0}_bytes_total counter\n",
                   direction);
    for (std::size_t n = 0; n < nodes_.size(); ++n) {
      fmt::format_to(std::back_inserter(body),
                     "node_network_{}_bytes_total{{device=\"eth0\",kubernetes_node=\"{}\"}} "
                     "{:.0f}\n",
                     direction, nodes_[n], values[n]);
    }
  };
  counter("receive", receive_counter_);
  counter("transmit", transmit_counter_);
  bool speed_family = false;
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    if (!(speed_[n] > 0)) continue;
    if (!speed_family) {
      body +=
          "# HELP node_network_speed_bytes Network device property speed_bytes.\n"
          "# TYPE node_network_speed_bytes gauge\n";
      speed_family = true;
    }
    fmt::format_to(std::back_inserter(body),
                   "node_network_speed_bytes{{device=\"eth0\",kubernetes_node=\"{}\"}} "
                   "{:.0f}\n",
                   nodes_[n], speed_[n]);
  }
  // This scrape saw none of their traffic; the next one sees it from now on.
  for (const auto pod : waiting_) {
    const auto it = pods_.find(pod);
    if (it == pods_.end() || it->second.counting) continue;
    it->second.counting = true;
    it->second.counted_to = now;
    add_rates(it->second, 1);
  }
  waiting_.clear();
  ++scrapes_;
  return body;
}

std::string TrafficExporter::scrape_cadvisor() {
  std::lock_guard lock(mutex_);
  const auto now = advance_all();
  std::vector<PodCounters> pods;
  for (auto& [id, pod] : pods_) {
    if (!pod.counting) continue;
    advance(pod, now);
    pods.push_back({.ns = pod.traffic.ns,
                    .name = pod.traffic.name,
                    .node = pod.traffic.node,
                    .receive = pod.received,
                    .transmit = pod.transmitted});
  }
  return cadvisor_exposition(
      pod_series_, {.nodes = nodes_, .receive = receive_counter_, .transmit = transmit_counter_},
      pods);
}

void TrafficExporter::serve() {
  for (;;) {
    tcp::socket socket(io_);
    boost::system::error_code ec;
    acceptor_.accept(socket, ec);
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      if (ec) continue;
      connection_fd_ = socket.native_handle();
    }
    boost::beast::flat_buffer buffer;
    http::request<http::string_body> request;
    http::read(socket, buffer, request, ec);
    if (!ec) {
      const bool get = request.method() == http::verb::get;
      const bool metrics = get && request.target() == "/metrics";
      const bool cadvisor =
          get && pod_series_ != PodSeries::none && request.target() == "/metrics/cadvisor";
      http::response<http::string_body> answer{
          metrics || cadvisor ? http::status::ok : http::status::not_found, 11};
      answer.set(http::field::content_type, "text/plain; version=0.0.4");
      answer.keep_alive(false);
      answer.body() = metrics    ? scrape()
                      : cadvisor ? scrape_cadvisor()
                                 : "only GET /metrics and /metrics/cadvisor\n";
      answer.prepare_payload();
      http::write(socket, answer, ec);
      socket.shutdown(tcp::socket::shutdown_both, ec);
    }
    std::lock_guard lock(mutex_);
    connection_fd_ = -1;
  }
}

std::string duration_text(std::int64_t ms) {
  return prom_duration(std::chrono::milliseconds(ms)).text;
}

namespace {

// The descheduler's URL has no port, so Prometheus must serve 443.
constexpr std::uint16_t kHttpsPort = 443;

void require_free_https_port() {
  boost::asio::io_context io;
  tcp::acceptor probe(io);
  boost::system::error_code ec;
  probe.open(tcp::v4(), ec);
  // As Prometheus (Go) binds: the previous run's connections in TIME_WAIT do not hold the port.
  if (!ec) probe.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) probe.bind(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), kHttpsPort), ec);
  if (ec) {
    throw std::runtime_error(fmt::format(
        "127.0.0.1:{} cannot be bound ({}): the descheduler reaches Prometheus on https without a "
        "port in its URL, so Prometheus must serve 443; free it (or run as root)",
        kHttpsPort, ec.message()));
  }
}

}  // namespace

ScrapingPrometheus::ScrapingPrometheus(const std::string& target, double scrape_s,
                                       PodSeries pod_series, const std::optional<Tls>& tls)
    : tls_(tls) {
  const std::int64_t interval = std::llround(scrape_s * 1000);
  std::string config = fmt::format(
      "global:\n  scrape_interval: {}\n  scrape_timeout: {}\n  evaluation_interval: {}\n"
      "rule_files: ['{}']\n"
      "scrape_configs:\n  - job_name: traffic\n    static_configs:\n      - targets: ['{}']\n",
      duration_text(interval), duration_text(interval * 9 / 10), duration_text(interval),
      rule_file(), target);
  if (pod_series != PodSeries::none) {
    config += fmt::format(
        "  - job_name: kubelet\n    honor_labels: true\n    metrics_path: /metrics/cadvisor\n"
        "    static_configs:\n      - targets: ['{}']\n",
        target);
  }
  std::ofstream(dir_.path + "/prometheus.yml") << config;
  std::ofstream(rule_file()) << "groups: []\n";
  if (tls_) {
    std::ofstream(dir_.path + "/web.yml") << fmt::format(
        "tls_server_config:\n  cert_file: {}\n  key_file: {}\n", tls_->cert_file, tls_->key_file);
    require_free_https_port();
    try_start(kHttpsPort);
  }
  // free_local_port() is racy: another process may take the port before Prometheus binds it.
  for (int attempt = 0; attempt < 5 && !process_ && !tls_; ++attempt)
    try_start(testing::free_local_port());
  if (!process_) throw std::runtime_error("prometheus did not start: " + testing::log_tail(log()));
}

ScrapingPrometheus::~ScrapingPrometheus() {
  if (process_) process_->stop(std::chrono::seconds(10));
}

void ScrapingPrometheus::set_rules(const std::string& rules) {
  std::ofstream(rule_file()) << rules;
  process_->signal(SIGHUP);
}

testing::HttpReply ScrapingPrometheus::get(const std::string& path) const {
  testing::HttpRequest request{.url = url() + path, .timeout = std::chrono::milliseconds(500)};
  if (tls_) request.auth.ca_file = tls_->cert_file;
  return testing::http_request(request);
}

void ScrapingPrometheus::try_start(std::uint16_t port) {
  port_ = port;
  std::vector<std::string> args{"prometheus", "--config.file=" + dir_.path + "/prometheus.yml",
                                "--storage.tsdb.path=" + dir_.path + "/data",
                                "--web.listen-address=127.0.0.1:" + std::to_string(port),
                                "--log.level=warn"};
  if (tls_) args.push_back("--web.config.file=" + dir_.path + "/web.yml");
  process_.emplace(testing::logged_program(args, log()));
  bool exited = false;
  const bool ready = testing::eventually(
      [&] {
        exited = !process_->alive();
        return exited || get("/-/ready").status == 200;
      },
      std::chrono::seconds(60));
  if (!ready || exited) process_.reset();  // SIGKILLs and reaps it
}

}  // namespace netscore::sim
