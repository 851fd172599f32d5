#include "extender/views/missing_nodes.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "common/table/score_table_layout.h"

namespace netscore::extender {
namespace {

TEST(MissingNodesTest, KeepsDistinctNamesSorted) {
  MissingNodes missing;
  missing.add("b");
  missing.add("a");
  missing.add("b");
  missing.add("");
  missing.add(std::string(shm::kMaxNameBytes + 1, 'x'));
  EXPECT_EQ(missing.names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(missing.dropped(), 0U);
}

TEST(MissingNodesTest, CountsEveryLookupBeyondTheBound) {
  MissingNodes missing;
  for (std::size_t i = 0; i < MissingNodes::kNames; ++i) missing.add("n" + std::to_string(i));
  missing.add("n0");
  EXPECT_EQ(missing.dropped(), 0U);
  missing.add("late");
  missing.add("late");
  EXPECT_EQ(missing.names().size(), MissingNodes::kNames);
  EXPECT_EQ(missing.dropped(), 2U);
  MetricFamilies families;
  missing.collect(families);
  std::string out;
  write_prometheus_text(families, out);
  EXPECT_NE(out.find("\nnetscore_extender_missing_nodes 258\n"), std::string::npos) << out;
}

TEST(MissingNodesTest, ConcurrentWritersKeepEveryName) {
  MissingNodes missing;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&missing] {
      for (int i = 0; i < 100; ++i) missing.add("n" + std::to_string(i));
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(missing.names().size(), 100U);
  EXPECT_EQ(missing.dropped(), 0U);
}

}  // namespace
}  // namespace netscore::extender
