// Score table: lookup (one name, every name) and publish at 100, 5000 and 65,536 nodes, next to an
// in-process std::unordered_map lookup as the baseline. Targets: lookup < 100 ns at 5000 nodes,
// publish of 5000 nodes < 1 ms, segment <= 16 MB at 15,000 nodes.
#include <benchmark/benchmark.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "bench/support/extender_fixture.h"
#include "common/table/score_table_reader.h"
#include "common/table/score_table_writer.h"
#include "tests/support/scratch_table.h"

namespace netscore {
namespace {

// Realistic node names: cloud-style, 30-40 bytes.
std::string node_name(std::size_t i) {
  return "ip-10-" + std::to_string(i / 250) + "-" + std::to_string(i % 250) +
         ".eu-west-1.compute.internal";
}

std::vector<TableEntry> entries(std::size_t n) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < n; ++i) names.push_back(node_name(i));
  return bench::scored_entries(names);
}

struct Fixture {
  explicit Fixture(std::size_t n)
      : name("bench-table"),
        data(entries(n)),
        writer({.name = name, .capacity = static_cast<std::uint32_t>(n)}) {
    writer.publish(data, 0);
    reader.emplace(ScoreTableReader::Options{.name = name});
    for (const auto& e : data) names.push_back(e.name);
  }
  testing::ScratchTable name;
  std::vector<TableEntry> data;
  ScoreTableWriter writer;
  std::optional<ScoreTableReader> reader;
  std::vector<std::string_view> names;
};

void BM_ScoreTable_Lookup(benchmark::State& state) {
  Fixture f(static_cast<std::size_t>(state.range(0)));
  NodeScore out;
  shm::SnapshotMeta meta{};
  std::size_t i = 0;
  for (auto _ : state) {
    f.reader->lookup({&f.names[i], 1}, {&out, 1}, meta);
    benchmark::DoNotOptimize(out);
    i = (i + 7919) % f.names.size();
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_UnorderedMap_Lookup(benchmark::State& state) {
  const auto data = entries(static_cast<std::size_t>(state.range(0)));
  std::unordered_map<std::string, NodeScore> map;
  std::vector<std::string> keys;
  for (const auto& e : data) {
    map[e.name] = {e, true};
    keys.push_back(e.name);
  }
  std::size_t i = 0;
  for (auto _ : state) {
    auto it = map.find(keys[i]);
    benchmark::DoNotOptimize(it);
    i = (i + 7919) % keys.size();
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_ScoreTable_LookupAll(benchmark::State& state) {
  Fixture f(static_cast<std::size_t>(state.range(0)));
  std::vector<NodeScore> out(f.names.size());
  shm::SnapshotMeta meta{};
  for (auto _ : state) {
    f.reader->lookup(f.names, out, meta);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_ScoreTable_Publish(benchmark::State& state) {
  Fixture f(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(f.writer.publish(f.data, 0));
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["segment_bytes"] = static_cast<double>(f.writer.layout().segment_bytes);
}

void BM_ScoreTable_SegmentBytes(benchmark::State& state) {
  const auto layout = shm::compute_layout(static_cast<std::uint32_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(layout.segment_bytes);
  state.counters["segment_bytes"] = static_cast<double>(layout.segment_bytes);
}

BENCHMARK(BM_UnorderedMap_Lookup)->Arg(100)->Arg(5000)->Arg(65536);
BENCHMARK(BM_ScoreTable_Lookup)->Arg(100)->Arg(5000)->Arg(65536);
BENCHMARK(BM_ScoreTable_LookupAll)->Arg(100)->Arg(5000)->Arg(65536);
BENCHMARK(BM_ScoreTable_Publish)->Arg(100)->Arg(5000)->Arg(65536);
BENCHMARK(BM_ScoreTable_SegmentBytes)->Arg(15000);

}  // namespace
}  // namespace netscore
