// Loopback load against an in-process netscore-extender: N client threads, one keep-alive
// connection each, POST /prioritize with NodeNames. Reports client-side p50/p99 and req/s, and
// the server-side distribution from the server's own latency histogram.
//   extender_load [--nodes 100] [--clients 2] [--requests 200000] [--seconds 10] [--server-threads
//   1]
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "bench/support/extender_fixture.h"
#include "bench/flags/flags.h"
#include "bench/support/percentile.h"
#include "bench/prometheus_text/exposition.h"
#include "bench/prometheus_text/histogram.h"
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

}  // namespace

int main(int argc, char** argv) {
  namespace flags = netscore::flags;
  Options o;
  flags::po::options_description options;
  options.add_options()("nodes", flags::number(o.nodes), "nodes per request (100)")(
      "clients", flags::number(o.clients), "concurrent clients (2)")(
      "requests", flags::number(o.requests), "requests in all (200000)")(
      "seconds", flags::seconds(o.seconds), "at most this long (10; a unit allowed: 1m)")(
      "server-threads", flags::number(o.server_threads), "the server's threads (1)");
  if (const auto stop = flags::parse(argc, argv, options,
                                     "usage: extender_load [--nodes=100] [--clients=2] "
                                     "[--requests=200000] [--seconds=10] [--server-threads=1]\n" +
                                         flags::describe(options),
                                     std::cout, std::cerr))
    return *stop;
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
    namespace text = netscore::prometheus_text;
    const auto samples = text::parse(metrics);
    const text::Labels prioritize{{"verb", "prioritize"}};
    const auto buckets =
        text::buckets(samples, "netscore_extender_request_duration_seconds", prioritize);
    const double served = text::observations(buckets);
    double under20 = 0, under300 = 0;
    for (const auto& bucket : buckets) {
      if (bucket.upper_bound == 20e-6) under20 = bucket.cumulative / served;
      if (bucket.upper_bound == 300e-6) under300 = bucket.cumulative / served;
    }
    const double sum_s =
        text::value(samples, "netscore_extender_request_duration_seconds_sum", prioritize)
            .value_or(0);
    std::printf(
        "nodes=%zu clients=%u server_threads=%u requests=%zu failures=%zu seconds=%.2f "
        "req_per_s=%.0f\n",
        o.nodes, o.clients, o.server_threads, all.size(), failures.load(), elapsed,
        static_cast<double>(all.size()) / elapsed);
    std::printf("client_us p50=%.1f p99=%.1f max=%.1f\n", percentile(all, 0.50),
                percentile(all, 0.99), percentile(all, 1.0));
    std::printf(
        "server_us p50=%.1f p99=%.1f (histogram_quantile) within_20us=%.4f within_300us=%.4f "
        "mean=%.1f\n",
        text::quantile(buckets, 0.50).value_or(0) * 1e6,
        text::quantile(buckets, 0.99).value_or(0) * 1e6, under20, under300,
        served > 0 ? sum_s / served * 1e6 : 0.0);
    status = failures.load() == 0 ? 0 : 1;
  }
  return status;
}
