// Server threads record decisions while /explain reads them: every decision a reader gets back
// must be one a writer recorded, whole (header and nodes from the same record, nothing torn),
// however the small rings wrap and however writers collide on a slot.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "extender/scheduler/decision_log.h"

namespace netscore::extender {
namespace {

constexpr int kWriters = 4;
constexpr int kReaders = 2;
constexpr int kPerWriter = 20000;
constexpr int kPodsPerWriter = 8;
// Decisions of 1 to 19 nodes: within one node block, and across two or three.
constexpr int kNodeCounts = 19;

std::string pod_name(int writer, int pod) {
  return "w" + std::to_string(writer) + "-p" + std::to_string(pod);
}
std::uint64_t marker(int writer, int i) {
  return static_cast<std::uint64_t>(writer) * 1'000'000 + i;
}
std::string node_name(std::uint64_t mark, std::size_t j) {
  return std::to_string(mark) + "-n" + std::to_string(j);
}

TEST(DecisionLogStress, ConcurrentRecordersAndReadersNeverSeeATornDecision) {
  DecisionLog log(64, 512);  // small: both rings wrap over a thousand times
  std::atomic<int> writers_left{kWriters};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kPerWriter; ++i) {
        DecisionHeader h;
        h.verb = Verb::prioritize;
        h.publish_id = marker(w, i);
        h.pod_namespace.set("ns");
        h.pod_name.set(pod_name(w, i % kPodsPerWriter));
        const std::size_t nodes = 1 + static_cast<std::size_t>(i % kNodeCounts);
        log.record(h, nodes, [&](std::size_t j, NodeDecision& n) {
          n.name.set(node_name(h.publish_id, j));
          n.seed_raw = static_cast<double>(h.publish_id);
          n.score = static_cast<std::int16_t>(j);
        });
      }
      writers_left.fetch_sub(1);
    });
  }
  std::vector<std::uint64_t> checked(kReaders, 0);
  std::vector<std::string> errors(kReaders);
  for (int r = 0; r < kReaders; ++r) {
    threads.emplace_back([&, r] {
      const auto verify = [&](int w, int p) {
        for (const Decision& d : log.find("ns", pod_name(w, p), {}, 100)) {
          const std::uint64_t mark = d.header.publish_id;
          const auto i = static_cast<int>(mark % 1'000'000);
          if (mark / 1'000'000 != static_cast<std::uint64_t>(w) || i % kPodsPerWriter != p) {
            errors[r] = "decision " + std::to_string(mark) + " returned for pod " + pod_name(w, p);
          }
          if (d.header.nodes_asked != 1 + static_cast<std::uint32_t>(i % kNodeCounts) ||
              d.nodes.size() + d.nodes_overwritten != d.header.nodes_recorded) {
            errors[r] = "node counts of decision " + std::to_string(mark) + " do not add up";
          }
          for (const NodeDecision& n : d.nodes) {
            if (n.seed_raw != static_cast<double>(mark) || n.score < 0 ||
                n.name.view() != node_name(mark, static_cast<std::size_t>(n.score))) {
              errors[r] = "node " + std::string(n.name.view()) + " mixed into decision " +
                          std::to_string(mark);
            }
          }
          ++checked[r];
        }
      };
      for (unsigned round = 0; writers_left.load() > 0; ++round) {
        verify(static_cast<int>(round % kWriters),
               static_cast<int>((round / kWriters) % kPodsPerWriter));
      }
      for (int w = 0; w < kWriters; ++w) verify(w, r);  // once more after the last write
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < kReaders; ++r) {
    EXPECT_EQ(errors[r], "") << "reader " << r;
    EXPECT_GT(checked[r], 0U) << "reader " << r;
  }
  EXPECT_EQ(log.recorded(), static_cast<std::uint64_t>(kWriters) * kPerWriter);
  // Quiescent now: every one of the 64 slots is readable.
  std::size_t newest = 0;
  for (int w = 0; w < kWriters; ++w) {
    for (int p = 0; p < kPodsPerWriter; ++p)
      newest += log.find("ns", pod_name(w, p), {}, 100).size();
  }
  EXPECT_EQ(newest,
            64U);  // every slot holds a whole decision (a dropped write leaves the older one)
}

}  // namespace
}  // namespace netscore::extender
