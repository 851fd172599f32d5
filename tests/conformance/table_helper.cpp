// Publishes (or removes) the score table the Go conformance test runs netscore-extender against.
//   table_helper publish <shm-name>   node-hot raw and rate 1000, node-mid 500, node-cold 0,
//   node-bad invalid;
//                                     labels known and synced for kRules, only node-cold labelled
//                                     edge
//   table_helper remove <shm-name>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "common/label_rules.h"
#include "common/table/score_table_writer.h"

// The extender under test runs with NETSCORE_LABEL_RULES set to this.
constexpr const char* kRules = "type=space:kubernetes.io/role=edge";

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: table_helper publish|remove <shm-name>\n";
    return 2;
  }
  const std::string verb = argv[1];
  const std::string name = argv[2];
  if (verb == "remove")
    return netscore::ScoreTableWriter::remove(name) ? EXIT_SUCCESS : EXIT_FAILURE;
  if (verb != "publish") return 2;
  netscore::ScoreTableWriter writer({.name = name, .capacity = 64});
  constexpr std::uint32_t kFlags = netscore::shm::kEntryHasSeries | netscore::shm::kEntryRateValid |
                                   netscore::shm::kEntryInCluster |
                                   netscore::shm::kEntryLabelsKnown;
  const std::vector<netscore::TableEntry> entries = {
      {{.raw = 1000.0,
        .raw_score = 1000,
        .node_score = 0,
        .sample_ms = 1,
        .rate = 1000.0,
        .corrected_raw_score = 1000,
        .corrected_node_score = 0,
        .flags = kFlags | netscore::shm::kEntryValid},
       "node-hot"},
      {{.raw = 500.0,
        .raw_score = 500,
        .node_score = 50,
        .sample_ms = 1,
        .rate = 500.0,
        .corrected_raw_score = 500,
        .corrected_node_score = 50,
        .flags = kFlags | netscore::shm::kEntryValid},
       "node-mid"},
      {{.raw = 0.0,
        .raw_score = 0,
        .node_score = 100,
        .sample_ms = 1,
        .rate = 0.0,
        .corrected_raw_score = 0,
        .corrected_node_score = 100,
        .flags = kFlags | netscore::shm::kEntryValid,
        .rule_mask = 1},
       "node-cold"},
      {{.raw = 0.0,
        .raw_score = 0,
        .node_score = 0,
        .sample_ms = 1,
        .rate = 0.0,
        .corrected_raw_score = 0,
        .corrected_node_score = 0,
        .flags = kFlags},
       "node-bad"}};
  writer.publish(entries, {.eval_time_ms = 1,
                           .flags = netscore::shm::kSnapshotClusterSynced,
                           .rules_hash = netscore::parse_label_rules(kRules).hash});
  return EXIT_SUCCESS;
}
