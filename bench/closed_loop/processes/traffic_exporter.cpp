#include "bench/closed_loop/processes/traffic_exporter.h"

#include <fcntl.h>
#include <sys/socket.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string_view>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>

#include "tests/support/eventually.h"
#include "tests/support/http_client.h"
#include "tests/support/prometheus_process.h"

namespace netscore::sim {

namespace http = boost::beast::http;
using boost::asio::ip::tcp;

TrafficExporter::TrafficExporter(std::vector<std::string> nodes, Direction receive,
                                 Direction transmit, std::vector<double> speed)
    : nodes_(std::move(nodes)),
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

void TrafficExporter::add_rates(const Pod& pod, double sign) {
  receive_[pod.node] += sign * pod.receive;
  transmit_[pod.node] += sign * pod.transmit;
}

void TrafficExporter::add_running(std::uint32_t pod, std::size_t node, double receive,
                                  double transmit) {
  std::lock_guard lock(mutex_);
  advance(node, Clock::now());
  const Pod running{.node = node, .receive = receive, .transmit = transmit, .counting = true};
  add_rates(running, 1);
  pods_[pod] = running;
}

void TrafficExporter::start_pod(std::uint32_t pod, std::size_t node, double receive,
                                double transmit) {
  std::lock_guard lock(mutex_);
  pods_[pod] = {.node = node, .receive = receive, .transmit = transmit, .counting = false};
  waiting_.push_back(pod);
}

void TrafficExporter::stop_pod(std::uint32_t pod) {
  std::lock_guard lock(mutex_);
  const auto it = pods_.find(pod);
  if (it == pods_.end()) return;
  if (it->second.counting) {
    advance(it->second.node, Clock::now());
    add_rates(it->second, -1);
  }
  pods_.erase(it);  // a waiting pod left in waiting_ is skipped at the scrape
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
  const auto now = Clock::now();
  for (std::size_t n = 0; n < nodes_.size(); ++n) advance(n, now);
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
    add_rates(it->second, 1);
  }
  waiting_.clear();
  ++scrapes_;
  return body;
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
      const bool metrics = request.method() == http::verb::get && request.target() == "/metrics";
      http::response<http::string_body> answer{metrics ? http::status::ok : http::status::not_found,
                                               11};
      answer.set(http::field::content_type, "text/plain; version=0.0.4");
      answer.keep_alive(false);
      answer.body() = metrics ? scrape() : "only GET /metrics\n";
      answer.prepare_payload();
      http::write(socket, answer, ec);
      socket.shutdown(tcp::socket::shutdown_both, ec);
    }
    std::lock_guard lock(mutex_);
    connection_fd_ = -1;
  }
}

std::string duration_text(std::int64_t ms) {
  return ms % 1000 == 0 ? fmt::format("{}s", ms / 1000) : fmt::format("{}ms", ms);
}

ScrapingPrometheus::TempDir::TempDir() : path(testing::make_temp_dir("netscore-realtime")) {}

ScrapingPrometheus::TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);
}

ScrapingPrometheus::ScrapingPrometheus(const std::string& target, double scrape_s) {
  const std::int64_t interval = std::llround(scrape_s * 1000);
  std::ofstream(dir_.path + "/prometheus.yml") << fmt::format(
      "global:\n  scrape_interval: {}\n  scrape_timeout: {}\n"
      "scrape_configs:\n  - job_name: traffic\n    static_configs:\n      - targets: ['{}']\n",
      duration_text(interval), duration_text(interval * 9 / 10), target);
  // free_local_port() is racy: another process may take the port before Prometheus binds it.
  for (int attempt = 0; attempt < 5 && !process_; ++attempt) try_start(testing::free_local_port());
  if (!process_) throw std::runtime_error("prometheus did not start: " + testing::log_tail(log()));
}

ScrapingPrometheus::~ScrapingPrometheus() {
  if (process_) process_->stop(std::chrono::seconds(10));
}

void ScrapingPrometheus::try_start(std::uint16_t port) {
  port_ = port;
  process_.emplace(testing::logged_program(
      {"prometheus", "--config.file=" + dir_.path + "/prometheus.yml",
       "--storage.tsdb.path=" + dir_.path + "/data",
       "--web.listen-address=127.0.0.1:" + std::to_string(port), "--log.level=warn"},
      log()));
  bool exited = false;
  const bool ready = testing::eventually(
      [&] {
        exited = !process_->alive();
        return exited ||
               testing::http_get(url() + "/-/ready", std::chrono::milliseconds(500)).status == 200;
      },
      std::chrono::seconds(60));
  if (!ready || exited) process_.reset();  // SIGKILLs and reaps it
}

}  // namespace netscore::sim
