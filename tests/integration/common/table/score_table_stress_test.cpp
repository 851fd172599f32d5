// Torn-read stress test (the shape of rigtorp's SeqlockTest): one writer publishes self-checking
// snapshots as fast as it can while readers verify every snapshot they read. Run across real
// processes (the production shape) and across threads (what ThreadSanitizer can observe).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "tests/support/child_process.h"
#include "tests/support/table_name.h"
#include "tests/support/table_pattern.h"

namespace netscore::testing {
namespace {

using Clock = std::chrono::steady_clock;

// The writer's names change every eighth publish: both of its ways of publishing race the readers.
constexpr std::uint32_t kBaseNodes = 32;
constexpr std::uint32_t kNamesEvery = 8;

struct ReaderReport {
  std::uint64_t verified = 0;  // node lookups checked against their snapshot's publish id
  std::uint64_t torn = 0;      // lookups or full reads whose fields disagree with the snapshot
  std::uint64_t busy = 0;
  std::uint64_t distinct_snapshots = 0;
  std::uint64_t full_reads = 0;
};

struct WriterReport {
  std::uint64_t publishes = 0;
};

struct ReaderPlan {
  std::string name;
  std::uint64_t quota = 0;
  Clock::duration limit{};
  bool stop_on_torn = false;
  // Keep reading past the quota until this many snapshots went by and the writer has reached
  // this publish id, so every reader has really raced the writer whatever the scheduler did with
  // the two cores.
  std::uint64_t min_snapshots = 100;
  std::uint64_t min_publish_id = 0;
};

ReaderReport run_reader(const ReaderPlan& plan) {
  ScoreTableReader reader({plan.name, 4});
  ReaderReport report;
  std::vector<std::string> names;
  for (std::uint32_t i = 0; i < kMaxPatternNodes; ++i) names.push_back(pattern_name(i));
  constexpr std::size_t kBatch = 8;
  std::vector<std::string_view> batch(kBatch);
  std::vector<NodeScore> out(kBatch);
  std::vector<TableRow> rows;
  shm::SnapshotMeta meta{};
  std::uint64_t last_id = 0;
  const auto deadline = Clock::now() + plan.limit;
  const auto more_to_do = [&] {
    return report.verified < plan.quota || report.distinct_snapshots < plan.min_snapshots ||
           last_id < plan.min_publish_id;
  };
  for (std::uint64_t round = 0; more_to_do() && (round & 255 || Clock::now() < deadline); ++round) {
    if (plan.stop_on_torn && report.torn > 0) break;
    if (round % 1024 == 0) {
      const auto status = reader.read_all(rows, meta);
      if (status == ReadStatus::ok) {
        ++report.full_reads;
        report.torn += snapshot_matches_pattern(meta, rows, kBaseNodes, kNamesEvery) ? 0 : 1;
      }
      continue;
    }
    const auto first = static_cast<std::uint32_t>((round * 7) % kMaxPatternNodes);
    for (std::size_t k = 0; k < kBatch; ++k) batch[k] = names[(first + k) % kMaxPatternNodes];
    const auto status = reader.lookup(batch, out, meta);
    if (status == ReadStatus::busy) ++report.busy;
    if (status != ReadStatus::ok) continue;
    if (meta.publish_id != last_id) {
      ++report.distinct_snapshots;
      last_id = meta.publish_id;
    }
    for (std::size_t k = 0; k < kBatch; ++k) {
      const std::uint32_t i = (first + static_cast<std::uint32_t>(k)) % kMaxPatternNodes;
      const bool should_exist = i < pattern_nodes(meta.publish_id, kBaseNodes, kNamesEvery);
      const bool ok = should_exist ? matches_pattern(meta.publish_id, i, out[k]) : !out[k].found;
      ++(ok ? report.verified : report.torn);
    }
  }
  return report;
}

// Publishes until `stop` says so or the time limit passes (a stuck parent cannot leave it running).
WriterReport run_writer(ScoreTableWriter& writer, const std::function<bool()>& stop,
                        Clock::duration limit) {
  WriterReport report;
  const auto deadline = Clock::now() + limit;
  for (std::uint64_t id = writer.last_publish_id() + 1; !stop() && Clock::now() < deadline; ++id) {
    writer.publish(pattern_snapshot(id, kBaseNodes, kNamesEvery), 0);
    ++report.publishes;
  }
  return report;
}

// Only a stuck writer or reader meets these: they end a run that would otherwise hang, and are
// many times what a loaded machine under ThreadSanitizer needs (seconds).
constexpr auto kReadLimit = std::chrono::minutes(5);
constexpr auto kWriteLimit = std::chrono::minutes(10);

class ScoreTableStress : public ::testing::Test {
 protected:
  // Readers and the writer in separate processes; the writer stops when the parent closes a pipe.
  std::vector<ReaderReport> run_processes(int readers, std::uint64_t quota,
                                          WriterReport& writer_report) {
    ScoreTableWriter writer({.name = name_, .capacity = 128});
    writer.publish(pattern_snapshot(1, kBaseNodes, kNamesEvery), 0);
    int stop_pipe[2];
    EXPECT_EQ(::pipe(stop_pipe), 0);
    auto writer_process = std::make_unique<ChildProcess<WriterReport>>([&] {
      ::close(stop_pipe[1]);
      pollfd pfd{stop_pipe[0], POLLIN, 0};
      return run_writer(
          writer, [&] { return ::poll(&pfd, 1, 0) != 0; }, kWriteLimit);
    });
    ::close(stop_pipe[0]);
    std::vector<std::unique_ptr<ChildProcess<ReaderReport>>> children;
    for (int r = 0; r < readers; ++r) {
      children.push_back(std::make_unique<ChildProcess<ReaderReport>>([&] {
        return run_reader(
            {.name = name_, .quota = quota, .limit = kReadLimit, .min_publish_id = 1001});
      }));
    }
    std::vector<ReaderReport> reports(children.size());
    for (std::size_t r = 0; r < children.size(); ++r)
      EXPECT_TRUE(children[r]->join(reports[r])) << "reader " << r;
    ::close(stop_pipe[1]);
    EXPECT_TRUE(writer_process->join(writer_report));
    return reports;
  }

  netscore::testing::TableName name_{"stress"};
};

ReaderReport total(const std::vector<ReaderReport>& reports) {
  ReaderReport sum;
  for (const auto& r : reports) {
    sum.verified += r.verified;
    sum.torn += r.torn;
    sum.busy += r.busy;
    sum.distinct_snapshots += r.distinct_snapshots;
    sum.full_reads += r.full_reads;
  }
  return sum;
}

void print(const char* what, const ReaderReport& sum, const WriterReport& writer) {
  std::printf(
      "%s: verified=%llu torn=%llu busy=%llu distinct_snapshots=%llu full_reads=%llu "
      "publishes=%llu\n",
      what, static_cast<unsigned long long>(sum.verified),
      static_cast<unsigned long long>(sum.torn), static_cast<unsigned long long>(sum.busy),
      static_cast<unsigned long long>(sum.distinct_snapshots),
      static_cast<unsigned long long>(sum.full_reads),
      static_cast<unsigned long long>(writer.publishes));
}

TEST_F(ScoreTableStress, ProcessesNeverSeeATornSnapshot) {
  constexpr int kReaders = 3;
  constexpr std::uint64_t kQuota = 3'400'000;  // 3 x 3.4M > 10^7 verified lookups
  WriterReport writer;
  const auto reports = run_processes(kReaders, kQuota, writer);
  const auto sum = total(reports);
  print("processes", sum, writer);
  EXPECT_EQ(sum.torn, 0U);
  EXPECT_GE(sum.verified, 10'000'000U);
  // The readers really raced the writer: many snapshots went by during every reader's run (each
  // reads until it has seen publish 1001).
  for (const auto& r : reports) EXPECT_GE(r.distinct_snapshots, 100U);
  EXPECT_GE(writer.publishes, 1000U);
}

TEST_F(ScoreTableStress, BrokenPublishIsCaught) {
  // Proves the checks above can fail: a writer that scribbles over the copy readers use, stopped
  // halfway through its publish (a torn snapshot by construction, not by a lucky race), must be
  // reported torn by the readers' full reads and by their lookups.
  ScoreTableWriter({.name = name_, .capacity = 128}).publish(pattern_snapshot(1), 0);
  const std::uint32_t half = pattern_nodes(2) / 2;
  ChildProcess<WriterReport> writer([&]() -> WriterReport {
    ScoreTableWriter broken({.name = name_,
                             .capacity = 128,
                             .unsafe_write_active_copy = true,
                             .test_hook = [&](WritePoint point, std::uint32_t stored) {
                               if (point == WritePoint::entry_stored && stored == half)
                                 ::raise(SIGSTOP);
                             }});
    broken.publish(pattern_snapshot(2), 0);
    ::_exit(6);  // the hook never stopped it
  });
  ASSERT_TRUE(writer.wait_until_stopped()) << "wait status " << writer.exit_status();

  const ReaderReport full_read = run_reader(
      {.name = name_, .quota = 1, .limit = kReadLimit, .stop_on_torn = true, .min_snapshots = 0});
  print("broken writer", full_read, {});
  EXPECT_EQ(full_read.torn, 1U);
  EXPECT_EQ(full_read.full_reads, 1U);

  ScoreTableReader reader({.name = name_});
  std::vector<std::string> names;
  std::vector<std::string_view> views;
  for (std::uint32_t i = 0; i < pattern_nodes(1); ++i) names.push_back(pattern_name(i));
  for (const auto& name : names) views.push_back(name);
  std::vector<NodeScore> out(views.size());
  shm::SnapshotMeta meta{};
  ASSERT_EQ(reader.lookup(views, out, meta), ReadStatus::ok);
  EXPECT_EQ(meta.publish_id, 1U);
  std::uint32_t torn = 0;
  for (std::uint32_t i = 0; i < out.size(); ++i)
    torn += matches_pattern(meta.publish_id, i, out[i]) ? 0 : 1;
  EXPECT_GT(torn, 0U) << "lookups of a half-overwritten snapshot all passed the check";
  writer.kill_now();
}

TEST_F(ScoreTableStress, ThreadsNeverSeeATornSnapshot) {
  // Same protocol inside one process, where ThreadSanitizer can check the memory orders.
  ScoreTableWriter writer({.name = name_, .capacity = 128});
  writer.publish(pattern_snapshot(1, kBaseNodes, kNamesEvery), 0);
  std::atomic<bool> stop{false};
  WriterReport writer_report;
  std::thread writer_thread([&] {
    writer_report = run_writer(
        writer, [&] { return stop.load(); }, kWriteLimit);
  });
  constexpr int kReaders = 2;
  std::vector<ReaderReport> reports(kReaders);
  std::vector<std::thread> readers;
  for (int r = 0; r < kReaders; ++r) {
    readers.emplace_back([&, r] {
      reports[r] = run_reader({.name = name_, .quota = 300'000, .limit = kReadLimit});
    });
  }
  for (auto& t : readers) t.join();
  stop = true;
  writer_thread.join();
  const auto sum = total(reports);
  print("threads", sum, writer_report);
  EXPECT_EQ(sum.torn, 0U);
  EXPECT_GE(sum.verified, 600'000U);
  for (const auto& r : reports) EXPECT_GE(r.distinct_snapshots, 100U);
}

// A placement record whose every field follows from its number, so that a torn read (words of
// two records) cannot pass for either.
shm::PlacementRecord numbered_placement(std::uint64_t number) {
  shm::PlacementRecord r{};
  r.number = number;
  r.placed_wall_ms = static_cast<std::int64_t>(number) * 1000;
  r.written_wall_ms = r.placed_wall_ms + 1;
  r.receive_rate = static_cast<double>(number) / 4;
  r.transmit_rate = -static_cast<double>(number);
  r.receive_priced_by = shm::kPricedBy[number % shm::kPricedBy.size()].first;
  r.transmit_priced_by = shm::kPricedBy[(number + 1) % shm::kPricedBy.size()].first;
  const std::string node(1 + number % shm::kMaxNameBytes, static_cast<char>('a' + number % 26));
  const std::string pod(1 + number * 7 % 300, static_cast<char>('A' + number % 26));
  shm::set_placement_names(r, node, pod);
  return r;
}

TEST_F(ScoreTableStress, ThreadsNeverSeeATornPlacement) {
  ScoreTableWriter writer({.name = name_, .capacity = 16});
  std::atomic<bool> stop{false};
  std::thread writer_thread([&] {
    const auto deadline = Clock::now() + kWriteLimit;
    while (!stop.load() && Clock::now() < deadline)
      writer.record_placement(numbered_placement(writer.placements_written() + 1));
  });
  ScoreTableReader reader({name_, 4});
  std::uint64_t verified = 0, torn = 0, last = 0, laps = 0;
  const auto deadline = Clock::now() + kReadLimit;
  // Until the writer went round the ring many times while this read, however the cores went.
  while ((verified < 200'000 || laps < 50) && Clock::now() < deadline) {
    for (const shm::PlacementRecord& r : reader.read_placements()) {
      const shm::PlacementRecord expected = numbered_placement(r.number);
      ++(std::memcmp(&r, &expected, sizeof(r)) == 0 ? verified : torn);
      if (r.number >= last + shm::kPlacementSlots) {
        last = r.number;
        ++laps;
      }
    }
  }
  stop = true;
  writer_thread.join();
  std::printf("placements: verified=%llu torn=%llu laps=%llu written=%llu\n",
              static_cast<unsigned long long>(verified), static_cast<unsigned long long>(torn),
              static_cast<unsigned long long>(laps),
              static_cast<unsigned long long>(writer.placements_written()));
  EXPECT_EQ(torn, 0U);
  EXPECT_GE(verified, 200'000U);
  EXPECT_GE(laps, 50U);
}

}  // namespace
}  // namespace netscore::testing
