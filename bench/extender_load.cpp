// Loopback load against an in-process netscore-extender: N client threads, one keep-alive
// connection each, POST /prioritize with NodeNames. Reports client-side p50/p99 and req/s, and
// the server-side distribution from the server's own latency histogram.
//   extender_load [--nodes 100] [--clients 2] [--requests 200000] [--seconds 10] [--server-threads
//   1]
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "bench/extender_fixture.h"
#include "bench/percentile.h"
#include "extender/http/server.h"
#include "tests/support/http_connection.h"
#include "tests/support/scratch_table.h"

namespace {

using netscore::bench::percentile;
using Clock = std::chrono::steady_clock;

struct Options {
  std::size_t nodes = 100;
  unsigned clients = 2;
  std::size_t requests = 200000;
  double seconds = 10;
  unsigned server_threads = 1;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const double v = std::strtod(argv[i + 1], nullptr);
    if (flag == "--nodes")
      o.nodes = static_cast<std::size_t>(v);
    else if (flag == "--clients")
      o.clients = static_cast<unsigned>(v);
    else if (flag == "--requests")
      o.requests = static_cast<std::size_t>(v);
    else if (flag == "--seconds")
      o.seconds = v;
    else if (flag == "--server-threads")
      o.server_threads = static_cast<unsigned>(v);
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      std::exit(2);
    }
  }
  return o;
}

// Cumulative prioritize buckets from the server's /metrics text: (le seconds, count).
std::vector<std::pair<double, double>> server_buckets(const std::string& metrics) {
  std::vector<std::pair<double, double>> out;
  const std::string key =
      "netscore_extender_request_duration_seconds_bucket{verb=\"prioritize\",le=\"";
  for (std::size_t at = metrics.find(key); at != std::string::npos;
       at = metrics.find(key, at + 1)) {
    const std::size_t le = at + key.size();
    const std::size_t quote = metrics.find('"', le);
    const std::string bound = metrics.substr(le, quote - le);
    const double count = std::strtod(metrics.c_str() + metrics.find(' ', quote) + 1, nullptr);
    out.emplace_back(bound == "+Inf" ? 1e9 : std::strtod(bound.c_str(), nullptr), count);
  }
  return out;
}

double bucket_quantile(const std::vector<std::pair<double, double>>& buckets, double q) {
  if (buckets.empty()) return 0;
  const double total = buckets.back().second;
  for (const auto& [le, count] : buckets) {
    if (count >= q * total) return le;
  }
  return buckets.back().first;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  spdlog::set_level(spdlog::level::warn);
  const netscore::testing::ScratchTable shm("load");
  netscore::ScoreTableWriter writer({.name = shm, .capacity = 8192});
  netscore::bench::publish_table(writer, std::max<std::size_t>(o.nodes, 5000));

  netscore::Config config;
  config.shm.name = shm;
  config.max_age = {std::chrono::hours(1), "1h"};
  config.extender.listen_host = "127.0.0.1";
  config.extender.threads = o.server_threads;
  config.extender.body_limit = 32 << 20;
  config.extender.header_timeout = {std::chrono::seconds(10), "10s"};
  config.extender.idle_timeout = {std::chrono::seconds(120), "120s"};
  config.extender.max_connections = 1024;
  config.extender.neutral_score = 5;
  int status = 0;
  {
    netscore::extender::Server server(config);
    server.start();
    const std::string body = netscore::bench::names_body(o.nodes);
    std::atomic<std::size_t> issued{0};
    std::atomic<std::size_t> failures{0};
    std::vector<std::vector<double>> latencies(o.clients);
    const auto deadline = Clock::now() + std::chrono::duration<double>(o.seconds);
    const auto start = Clock::now();
    std::vector<std::thread> threads;
    for (unsigned c = 0; c < o.clients; ++c) {
      threads.emplace_back([&, c] {
        netscore::testing::HttpConnection client(server.port(), std::chrono::seconds(10));
        const auto req = netscore::testing::json_request(netscore::testing::http::verb::post,
                                                         "/prioritize", body);
        auto& mine = latencies[c];
        mine.reserve(o.requests / o.clients + 1);
        while (issued.fetch_add(1, std::memory_order_relaxed) < o.requests &&
               Clock::now() < deadline) {
          const auto t0 = Clock::now();
          const auto res = client.send(req);
          mine.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
          if (res.result_int() != 200) failures.fetch_add(1, std::memory_order_relaxed);
        }
      });
    }
    for (auto& t : threads) t.join();
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    std::vector<double> all;
    for (auto& v : latencies) all.insert(all.end(), v.begin(), v.end());
    netscore::extender::MetricFamilies families;
    server.shared().metrics.collect(families);
    std::string metrics;
    netscore::extender::write_prometheus_text(families, metrics);
    const auto buckets = server_buckets(metrics);
    const double served = buckets.empty() ? 0 : buckets.back().second;
    double under20 = 0, under300 = 0;
    for (const auto& [le, count] : buckets) {
      if (le == 20e-6) under20 = count / served;
      if (le == 300e-6) under300 = count / served;
    }
    std::printf(
        "nodes=%zu clients=%u server_threads=%u requests=%zu failures=%zu seconds=%.2f "
        "req_per_s=%.0f\n",
        o.nodes, o.clients, o.server_threads, all.size(), failures.load(), elapsed,
        static_cast<double>(all.size()) / elapsed);
    std::printf("client_us p50=%.1f p99=%.1f max=%.1f\n", percentile(all, 0.50),
                percentile(all, 0.99), percentile(all, 1.0));
    std::printf(
        "server_us p50<=%.0f p99<=%.0f (histogram bucket bounds) "
        "within_20us=%.4f within_300us=%.4f mean=%.1f\n",
        bucket_quantile(buckets, 0.50) * 1e6, bucket_quantile(buckets, 0.99) * 1e6, under20,
        under300, [&] {
          const std::string key =
              "netscore_extender_request_duration_seconds_sum{verb=\"prioritize\"} ";
          const auto at = metrics.find(key);
          return at == std::string::npos || served == 0
                     ? 0.0
                     : std::strtod(metrics.c_str() + at + key.size(), nullptr) / served * 1e6;
        }());
    status = failures.load() == 0 ? 0 : 1;
  }
  return status;
}
