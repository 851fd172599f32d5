// Soak: the real netscore-extender under keep-alive load from several client threads while the
// real netscore-collector refreshes every second against a real Prometheus that is restarted
// twice. Prints one `soak_interval` line per interval and a report with acceptance checks;
// exits 1 when a check fails. Not part of the test run: `bash scripts/soak.sh [minutes]`.
//   netscore_soak [--minutes 10] [--clients 4] [--nodes 50] [--interval 30] [--warmup 15]
//                 [--rss-bound-mb 10] [--bin-dir DIR] [--work-dir DIR]
#include <curl/curl.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench/support/extender_fixture.h"
#include "bench/flags/flags.h"
#include "bench/soak/soak_report.h"
#include "bench/soak/soak_traffic.h"
#include "tests/support/binary_process.h"
#include "tests/support/eventually.h"
#include "tests/support/http_client.h"
#include "tests/support/http_connection.h"
#include "tests/support/netscore_binaries.h"
#include "tests/support/prometheus_process.h"
#include "tests/support/scratch_table.h"
#include "tests/support/synth.h"

namespace {

namespace fs = std::filesystem;
namespace bench = netscore::bench;
using Clock = std::chrono::steady_clock;
using Seconds = std::chrono::duration<double>;
using netscore::testing::BinaryProcess;

std::atomic<bool> g_interrupted{false};
extern "C" void on_signal(int) {
  g_interrupted.store(true);
}

struct Options {
  double minutes = 10;
  unsigned clients = 4;
  unsigned nodes = 50;
  double interval_s = 30;
  double warmup_s = 15;
  // The extender's steady state is ~6 MB. ~12k req/s for 10 minutes is ~7M requests, so a leak
  // of 2 bytes per request would cross 10 MB, while allocator arenas already touched during the
  // warm-up do not grow with time.
  double rss_bound_mb = 10;
  // The build directory: this binary is its bench/soak/netscore_soak.
  fs::path bin_dir = fs::read_symlink("/proc/self/exe").parent_path().parent_path().parent_path();
  fs::path work_dir;
};

// The options, or the exit code when the soak should not run (--help, a bad flag).
std::optional<int> parse(int argc, char** argv, Options& o) {
  namespace flags = netscore::flags;
  std::string bin_dir = o.bin_dir.string(), work_dir;
  flags::po::options_description options;
  options.add_options()("minutes", flags::number(o.minutes), "how long (10)")(
      "clients", flags::number(o.clients), "keep-alive clients (4)")(
      "nodes", flags::number(o.nodes), "nodes per request (50)")(
      "interval", flags::seconds(o.interval_s), "between report lines (30 s)")(
      "warmup", flags::seconds(o.warmup_s), "before the RSS baseline (15 s)")(
      "rss-bound-mb", flags::number(o.rss_bound_mb), "allowed RSS growth (10)")(
      "bin-dir", flags::text(bin_dir), "where netscore-collector and netscore-extender are")(
      "work-dir", flags::text(work_dir), "kept afterwards (default: a temporary one)");
  if (const auto stop = flags::parse(argc, argv, options,
                                     "usage: netscore_soak [flags]\n" + flags::describe(options),
                                     std::cout, std::cerr))
    return stop;
  o.bin_dir = bin_dir;
  o.work_dir = work_dir;
  if (o.minutes <= 0 || o.clients == 0 || o.nodes < 2 || o.interval_s <= 0 ||
      o.warmup_s >= o.minutes * 60) {
    std::cerr << "netscore_soak: minutes > 0, clients > 0, nodes >= 2, warmup shorter than the "
                 "soak\n";
    return 2;
  }
  return std::nullopt;
}

// Sleeps in short steps until `until` or an interrupt; false when interrupted.
bool wait_until(Clock::time_point until) {
  while (Clock::now() < until) {
    if (g_interrupted.load()) return false;
    std::this_thread::sleep_for(
        std::min<Clock::duration>(until - Clock::now(), std::chrono::milliseconds(100)));
  }
  return !g_interrupted.load();
}

// Synthetic traffic whose window covers the whole soak plus a margin on both sides.
netscore::testing::SynthOptions traffic(const Options& o) {
  netscore::testing::SynthOptions synth;
  synth.nodes = o.nodes;
  synth.end_s = std::time(nullptr) + static_cast<std::int64_t>(o.minutes * 60) + 1800;
  synth.hours = o.minutes / 60 + 1.5;
  return synth;
}

// The extender on the port it binds itself (NETSCORE_LISTEN=127.0.0.1:0), read from its log.
std::unique_ptr<BinaryProcess> start_extender(const Options& o, const fs::path& dir,
                                              const std::string& shm, std::uint16_t& port) {
  auto extender = std::make_unique<BinaryProcess>(
      BinaryProcess::Options{(o.bin_dir / "extender/netscore-extender").string(),
                             {"NETSCORE_LISTEN=127.0.0.1:0", "NETSCORE_SHM_NAME=" + shm},
                             {},
                             (dir / "extender.log").string(),
                             {}});
  const std::string url = netscore::testing::extender_base_url(*extender, std::chrono::minutes(1));
  const auto ready = [&] {
    return g_interrupted.load() ||
           netscore::testing::http_get(url + "/readyz", std::chrono::seconds(1)).status == 200;
  };
  if (url.empty() || !netscore::testing::eventually(ready, std::chrono::minutes(1)) ||
      g_interrupted.load())
    throw std::runtime_error("the extender did not become ready; see " +
                             (dir / "extender.log").string());
  port = static_cast<std::uint16_t>(std::stoul(netscore::testing::logged_port(extender->log())));
  return extender;
}

// Requests the scheduler would send: NodeNames-mode prioritize (the recommended configuration),
// Nodes-mode prioritize and NodeNames-mode filter.
std::vector<netscore::testing::WireRequest> scheduler_requests(unsigned nodes) {
  std::vector<std::string> names;
  for (const auto& n : netscore::testing::synth_nodes(nodes)) names.push_back(n.name);
  const std::vector<std::string> some(
      names.begin(), names.begin() + std::min<std::ptrdiff_t>(10, std::ssize(names)));
  const std::string by_name = bench::names_body(names);
  const auto post = [](const std::string& target, std::string body) {
    return netscore::testing::json_request(netscore::testing::http::verb::post, target,
                                           std::move(body));
  };
  return {post("/prioritize", by_name), post("/prioritize", bench::nodes_body(some)),
          post("/prioritize", by_name), post("/filter", by_name)};
}

int soak(const Options& o, const fs::path& dir) {
  std::printf("== soak minutes=%.1f clients=%u nodes=%u interval_s=%.0f work_dir=%s\n", o.minutes,
              o.clients, o.nodes, o.interval_s, dir.c_str());
  std::fflush(stdout);
  netscore::testing::PrometheusProcess prometheus(traffic(o));
  // Declared before the collector so that it is removed after the collector has stopped.
  const netscore::testing::ScratchTable shm("soak");
  BinaryProcess collector(BinaryProcess::Options{
      (o.bin_dir / "collector/netscore-collector").string(),
      {"NETSCORE_PROMETHEUS_URL=" + prometheus.url(),
       std::string("NETSCORE_INTERFACE=") + netscore::testing::kSynthInterface,
       "NETSCORE_REFRESH_INTERVAL=1s", "NETSCORE_SHM_NAME=" + shm.str()},
      {},
      (dir / "collector.log").string(),
      {}});
  std::uint16_t port = 0;
  const auto extender = start_extender(o, dir, shm.str(), port);
  std::printf("prometheus=%s collector_pid=%d extender=127.0.0.1:%u extender_pid=%d\n",
              prometheus.url().c_str(), collector.pid(), port, extender->pid());
  std::fflush(stdout);

  const auto requests = scheduler_requests(o.nodes);
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration_cast<Clock::duration>(Seconds(o.minutes * 60));
  std::atomic<bool> stop{false};
  std::vector<std::unique_ptr<bench::TrafficTally>> tallies;
  std::vector<std::thread> clients;
  for (unsigned c = 0; c < o.clients; ++c) {
    tallies.push_back(std::make_unique<bench::TrafficTally>());
    clients.emplace_back(bench::run_client, port, std::cref(requests), std::cref(stop),
                         end + std::chrono::seconds(5), std::ref(*tallies.back()));
  }
  // Prometheus down for a few refreshes at ~1/3 and ~2/3; this thread alone owns `prometheus`
  // until it is joined.
  std::atomic<int> restarts{0};
  std::thread faults([&] {
    for (const double at : {1.0 / 3, 2.0 / 3}) {
      if (!wait_until(start +
                      std::chrono::duration_cast<Clock::duration>(Seconds(o.minutes * 60 * at))))
        return;
      prometheus.stop();
      std::printf("prometheus_restart t_s=%.0f stopped\n", Seconds(Clock::now() - start).count());
      std::fflush(stdout);
      if (!wait_until(Clock::now() + std::chrono::seconds(5))) return;
      prometheus.start();
      restarts.fetch_add(1);
      std::printf("prometheus_restart t_s=%.0f started\n", Seconds(Clock::now() - start).count());
      std::fflush(stdout);
    }
  });

  bench::SoakReport report(o.clients, o.rss_bound_mb);
  netscore::testing::HttpConnection table_client(port, std::chrono::seconds(5));
  const auto sample_all = [&] {
    return bench::Sample{extender->sample(), collector.sample(),
                         bench::read_collector_counts(table_client)};
  };
  const auto warm = start + std::chrono::duration_cast<Clock::duration>(Seconds(o.warmup_s));
  if (wait_until(warm)) report.set_start(sample_all());
  for (auto next = start + std::chrono::duration_cast<Clock::duration>(Seconds(o.interval_s));
       !g_interrupted.load();
       next += std::chrono::duration_cast<Clock::duration>(Seconds(o.interval_s))) {
    const bool last = next >= end;
    wait_until(last ? end : next);
    bench::IntervalTally interval;
    for (auto& t : tallies) bench::merge(interval, t->take());
    const auto sample = sample_all();
    report.add_interval(Seconds(Clock::now() - start).count(), std::move(interval), sample);
    if (last) {
      report.set_end(sample, extender->alive() && collector.alive());
      break;
    }
  }
  stop.store(true);
  for (auto& t : clients) t.join();
  faults.join();
  report.set_restarts(restarts.load());
  if (g_interrupted.load()) {
    std::printf("soak interrupted\n");
    return 130;
  }
  const bool pass = report.print_summary(Seconds(Clock::now() - start).count());
  return pass ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (const auto stop = parse(argc, argv, o)) return *stop;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGPIPE, SIG_IGN);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  fs::path dir = o.work_dir;
  int status = 1;
  try {
    if (dir.empty()) dir = netscore::testing::make_temp_dir("netscore-soak");
    fs::create_directories(dir);
    status = soak(o, dir);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "netscore_soak: %s (logs in %s)\n", e.what(), dir.c_str());
  }
  curl_global_cleanup();
  return status;
}
