#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.h"
#include "common/table/score_table_writer.h"
#include "tests/unit/extender/http/handlers_fixture.h"

// A table with placement correction and a cluster mismatch, as the extender serves it: the
// prioritize tests (burst_spread_test) and the cluster view's tests (cluster_view_test) share it.
namespace netscore::extender::correction_fixture {

// Seed raw scores a=0, b=50, c=200 (cluster node_score 100, 75, 0). Placed pods add expected
// traffic: a +300 (corrected raw 300), b +0 (50), c +0 (200); cluster corrected scores by
// NormalizeScore over max 300: a 0, b 84, c 34.
inline std::vector<TableEntry> entries() {
  constexpr std::uint32_t kBoth = shm::kEntryHasSeries | shm::kEntryInCluster;
  return {{{.raw = 0.0,
            .raw_score = 0,
            .node_score = 100,
            .sample_ms = 1000,
            .rate = 0.0,
            .expected = 300.0,
            .corrected_raw_score = 300,
            .corrected_node_score = 0,
            .placed_pods = 3,
            .flags = kBoth | shm::kEntryRateValid | shm::kEntryValid},
           "a"},
          {{.raw = 50.0,
            .raw_score = 50,
            .node_score = 75,
            .sample_ms = 1000,
            .corrected_raw_score = 50,
            .corrected_node_score = 84,
            .flags = kBoth | shm::kEntryValid},
           "b"},
          {{.raw = 200.0,
            .raw_score = 200,
            .node_score = 0,
            .sample_ms = 1000,
            .corrected_raw_score = 200,
            .corrected_node_score = 34,
            .flags = kBoth | shm::kEntryValid},
           "c"},
          // In the cluster, no series: no score, listed as a node without series.
          {{.sample_ms = 1000, .flags = shm::kEntryInCluster}, "quiet-node"},
          // A series the cluster has no node for.
          {{.raw = 10.0,
            .raw_score = 10,
            .node_score = 95,
            .sample_ms = 1000,
            .corrected_raw_score = 10,
            .corrected_node_score = 97,
            .flags = shm::kEntryHasSeries | shm::kEntryValid},
           "old-node"}};
}

// The same nodes as a collector without correction publishes them: corrected == seed.
inline std::vector<TableEntry> uncorrected_entries() {
  std::vector<TableEntry> out = entries();
  for (auto& e : out) {
    e.expected = 0;
    e.placed_pods = 0;
    e.corrected_raw_score = e.raw_score;
    e.corrected_node_score = e.node_score;
  }
  return out;
}

class CorrectionTest : public HandlersFixture {
 protected:
  CorrectionTest() : HandlersFixture("correction") {}

  void publish(const std::vector<TableEntry>& rows, std::uint32_t flags) {
    publish_rows(rows, {.eval_time_ms = 1000, .flags = flags});
  }
  std::string prioritize(std::string_view names_json) { return prioritize_names(names_json).body; }
  // Every answer prioritize gives for a fixed set of requests, both modes.
  std::vector<std::string> answers() {
    std::vector<std::string> out;
    for (const auto mode : {Normalisation::request, Normalisation::cluster}) {
      config_.extender.normalisation = mode;
      for (const auto* names :
           {R"(["a","b","c"])", R"(["b","c"])", R"(["a","quiet-node","old-node","zz"])"}) {
        out.push_back(prioritize(names));
      }
    }
    return out;
  }
};

}  // namespace netscore::extender::correction_fixture
