#include "common/table/seqlock.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>
#include <thread>
#include <vector>

namespace netscore::seqlock {
namespace {

// A record whose words all carry the same stamp: a copy mixing two writes has two stamps.
struct Stamped {
  std::array<std::uint64_t, 24> words{};
  static Stamped of(std::uint64_t stamp) {
    Stamped s;
    s.words.fill(stamp);
    return s;
  }
  bool whole() const {
    for (const auto w : words) {
      if (w != words[0]) return false;
    }
    return true;
  }
};

// Two copies of a Stamped behind a latch, as the score table keeps its status.
struct LatchedRecord {
  Word seq{0};
  std::array<std::array<Word, kWordsOf<Stamped>>, 2> copies{};

  void write(const Stamped& value) {
    store(copies[Latch::idle_copy(seq)].data(), value);
    Latch::publish(seq);
  }
  ReadStatus read(Stamped& out, unsigned attempts = 64) const {
    return Latch::read(seq, attempts, [&](std::size_t copy) { load(copies[copy].data(), out); });
  }
};

TEST(Seqlock, WordsRoundTripIncludingATailShorterThanAWord) {
  struct Odd {
    char text[13];
  };
  static_assert(kWordsOf<Odd> == 2);
  std::array<Word, kWordsOf<Odd>> words{};
  store(words.data(), Odd{"abcdefghijkl"});
  Odd out{};
  load(words.data(), out);
  EXPECT_EQ(std::string_view(out.text), "abcdefghijkl");
}

TEST(Seqlock, StoreSkipsTheWordsTheCallerDoesNotNeed) {
  std::array<Word, 3> words{};
  words[1].store(99);
  const std::array<std::uint64_t, 3> value{1, 2, 3};
  store(words.data(), value, [](std::size_t begin, std::size_t) { return begin != 8; });
  EXPECT_EQ(words[0].load(), 1U);
  EXPECT_EQ(words[1].load(), 99U);
  EXPECT_EQ(words[2].load(), 3U);
}

TEST(Seqlock, LatchIsEmptyUntilTheFirstPublishThenReadsTheLatestCopy) {
  LatchedRecord r;
  Stamped out;
  EXPECT_EQ(r.read(out), ReadStatus::empty);
  r.write(Stamped::of(1));
  ASSERT_EQ(r.read(out), ReadStatus::ok);
  EXPECT_EQ(out.words[0], 1U);
  r.write(Stamped::of(2));
  ASSERT_EQ(r.read(out), ReadStatus::ok);
  EXPECT_EQ(out.words[0], 2U);
  EXPECT_TRUE(out.whole());
}

TEST(Seqlock, AWriterStoppedBeforePublishingLeavesTheLastCompleteCopyReadable) {
  LatchedRecord r;
  r.write(Stamped::of(1));
  // Half of the next copy, then the writer dies: seq still names copy 1's predecessor.
  Word* idle = r.copies[Latch::idle_copy(r.seq)].data();
  for (std::size_t k = 0; k < kWordsOf<Stamped> / 2; ++k) idle[k].store(2);
  Stamped out;
  ASSERT_EQ(r.read(out), ReadStatus::ok);
  EXPECT_EQ(out.words[0], 1U);
  EXPECT_TRUE(out.whole());
}

TEST(Seqlock, AReadThatAlwaysMeetsAWriteGivesUpAfterItsAttempts) {
  Word seq{1};
  unsigned reads = 0;
  const auto status = read_retrying(seq, 5, [&](std::uint64_t) {
    ++reads;
    seq.fetch_add(1);  // a publish lands during every copy
    return true;
  });
  EXPECT_EQ(status, ReadStatus::busy);
  EXPECT_EQ(reads, 5U);
}

TEST(Seqlock, SlotIsUnreadableUntilWrittenAndSkipsAWriteInProgress) {
  Slot<Stamped> slot;
  Stamped out;
  EXPECT_FALSE(slot.try_load(out, 4));
  ASSERT_TRUE(slot.try_store(Stamped::of(5)));
  ASSERT_TRUE(slot.try_load(out, 4));
  EXPECT_EQ(out.words[0], 5U);

  // A writer that claims the slot and never finishes: others neither write nor read it.
  bool claimed_inside = false;
  ASSERT_TRUE(slot.try_store(Stamped::of(6), [&](std::size_t begin, std::size_t) {
    if (begin == 0) {
      claimed_inside = true;
      EXPECT_FALSE(slot.try_store(Stamped::of(7)));
      Stamped during;
      EXPECT_FALSE(slot.try_load(during, 4));
    }
    return true;
  }));
  EXPECT_TRUE(claimed_inside);
  ASSERT_TRUE(slot.try_load(out, 4));
  EXPECT_EQ(out.words[0], 6U);
  EXPECT_TRUE(out.whole());
}

// One writer publishing as fast as it can, readers checking every copy they accept. A reader that
// accepted a copy overwritten meanwhile would see two stamps; under ThreadSanitizer this also
// checks the orders (no fences it cannot see).
TEST(Seqlock, ConcurrentLatchReadersNeverAcceptATornCopy) {
  constexpr std::uint64_t kWrites = 20000;
  LatchedRecord r;
  r.write(Stamped::of(1));
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> torn{0}, accepted{0}, backwards{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&] {
      std::uint64_t last = 0;
      Stamped out;
      while (!done.load(std::memory_order_acquire)) {
        if (r.read(out) != ReadStatus::ok) continue;
        accepted.fetch_add(1, std::memory_order_relaxed);
        if (!out.whole()) torn.fetch_add(1, std::memory_order_relaxed);
        if (out.words[0] < last) backwards.fetch_add(1, std::memory_order_relaxed);
        last = out.words[0];
      }
    });
  }
  // Until the readers have had a fair share too, however the threads were scheduled.
  std::uint64_t written = 1;
  while (written < kWrites || accepted.load(std::memory_order_relaxed) < 1000)
    r.write(Stamped::of(++written));
  done.store(true, std::memory_order_release);
  for (auto& t : readers) t.join();
  Stamped last;
  ASSERT_EQ(r.read(last), ReadStatus::ok);
  EXPECT_EQ(last.words[0], written);
  EXPECT_EQ(torn.load(), 0U);
  EXPECT_EQ(backwards.load(), 0U);
}

// Several writers sharing slots (as the decision log's server threads do) and a reader.
TEST(Seqlock, ConcurrentSlotWritersAndReaderNeverTearARecord) {
  constexpr std::uint64_t kWritesPerThread = 20000;
  std::array<Slot<Stamped>, 4> slots;
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> torn{0}, accepted{0}, stored{0};
  std::thread reader([&] {
    Stamped out;
    while (!done.load(std::memory_order_acquire)) {
      for (const auto& slot : slots) {
        if (!slot.try_load(out, 8)) continue;
        accepted.fetch_add(1, std::memory_order_relaxed);
        if (!out.whole()) torn.fetch_add(1, std::memory_order_relaxed);
      }
    }
  });
  std::vector<std::thread> writers;
  for (std::uint64_t w = 1; w <= 2; ++w) {
    writers.emplace_back([&, w] {
      for (std::uint64_t i = 0;
           i < kWritesPerThread || accepted.load(std::memory_order_relaxed) < 1000; ++i) {
        if (slots[i % slots.size()].try_store(Stamped::of(w << 32 | i)))
          stored.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  for (auto& t : writers) t.join();
  done.store(true, std::memory_order_release);
  reader.join();
  for (const auto& slot : slots) {
    Stamped out;
    ASSERT_TRUE(slot.try_load(out, 1));
    EXPECT_TRUE(out.whole());
  }
  EXPECT_EQ(torn.load(), 0U);
  EXPECT_GT(stored.load(), 0U);
}

}  // namespace
}  // namespace netscore::seqlock
