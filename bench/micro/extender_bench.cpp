// parse+score+serialize of the extender's prioritize, the /explain decision log on (default size),
// next to a parse-only floor over the same bytes. The _Cold variant evicts the caches before each
// request, as kube-scheduler's own work does between two of its calls.
#include <unistd.h>

#include <vector>

#include <benchmark/benchmark.h>
#include <rapidjson/reader.h>

#include "bench/support/extender_fixture.h"
#include "common/clock.h"
#include "extender/http/handlers.h"
#include "tests/support/scratch_table.h"

namespace {

using netscore::extender::Handlers;
namespace http = boost::beast::http;

std::optional<netscore::testing::ScratchTable> g_shm;
std::optional<netscore::TableAttachment> g_table;

std::string body_for(std::int64_t n) {
  return netscore::bench::names_body(static_cast<std::size_t>(n));
}

// The floor: the same copy and the same in-situ, validating, iterative RapidJSON parse, with a
// handler that does nothing.
void parse_only(benchmark::State& state) {
  const std::string body = body_for(state.range(0));
  std::string buffer;
  for (auto _ : state) {
    buffer = body;
    rapidjson::InsituStringStream stream(buffer.data());
    rapidjson::BaseReaderHandler<> handler;
    rapidjson::Reader reader;
    constexpr unsigned kFlags = rapidjson::kParseInsituFlag |
                                rapidjson::kParseValidateEncodingFlag |
                                rapidjson::kParseIterativeFlag;
    benchmark::DoNotOptimize(reader.Parse<kFlags>(stream, handler));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * body.size()));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// Larger than this machine's last-level cache, each line read and written through the cache
// (memset's non-temporal stores would bypass it).
void evict_caches() {
  static std::vector<unsigned char> scratch(64U << 20);
  for (std::size_t at = 0; at < scratch.size(); at += 64) ++scratch[at];
  benchmark::ClobberMemory();
}

void prioritize(benchmark::State& state, bool cold) {
  const std::string body = body_for(state.range(0));
  netscore::Config config;
  config.shm.name = g_shm->str();
  config.max_age = {std::chrono::hours(1), "1h"};
  config.extender.neutral_score = 5;
  // The defaults of NETSCORE_EXPLAIN_DECISIONS and NETSCORE_EXPLAIN_NODES.
  netscore::extender::SharedState shared(1, 4096, 32768);
  Handlers handlers(config, shared, 0);
  std::string buffer;
  for (auto _ : state) {
    if (cold) {
      state.PauseTiming();
      evict_caches();
      state.ResumeTiming();
    }
    buffer = body;
    auto response =
        handlers.handle(http::verb::post, "/prioritize", buffer, *g_table, netscore::mono_now_ns());
    if (response.status != 200) state.SkipWithError("request failed");
    benchmark::DoNotOptimize(response.body.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * body.size()));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_Extender_ParseOnly_NodeNames(benchmark::State& s) {
  parse_only(s);
}
void BM_Extender_Prioritize_NodeNames_Request_Recorded(benchmark::State& s) {
  prioritize(s, false);
}
void BM_Extender_Prioritize_NodeNames_Request_Recorded_Cold(benchmark::State& s) {
  prioritize(s, true);
}

#define NODE_COUNTS ->Arg(100)->Arg(500)->Arg(1000)->Arg(5000)->Unit(benchmark::kMicrosecond)
BENCHMARK(BM_Extender_ParseOnly_NodeNames) NODE_COUNTS;
BENCHMARK(BM_Extender_Prioritize_NodeNames_Request_Recorded) NODE_COUNTS;
BENCHMARK(BM_Extender_Prioritize_NodeNames_Request_Recorded_Cold) NODE_COUNTS;

}  // namespace

int main(int argc, char** argv) {
  int status = 0;
  {
    g_shm.emplace("bench-extender");
    netscore::ScoreTableWriter writer({.name = g_shm->str(), .capacity = 8192});
    netscore::bench::publish_table(writer, 5000);
    g_table.emplace(netscore::ScoreTableReader::Options{.name = g_shm->str()});
    g_table->poll();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
      status = 1;
    } else {
      benchmark::RunSpecifiedBenchmarks();
      benchmark::Shutdown();
    }
    g_table.reset();
    g_shm.reset();
  }
  return status;
}
