#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

// Seqlocks: a reader copies a record while a writer may be storing it, and keeps the copy only if
// the record's sequence word did not move meanwhile. The payload is std::atomic<uint64_t> words,
// stored with release and loaded with acquire, never with standalone fences: the race a seqlock
// allows is then defined behaviour, and ThreadSanitizer (which does not model
// atomic_thread_fence) checks the protocol itself. On x86-64 these are plain movs.
//
// Why the orders suffice: a writer's payload stores come after its sequence change in program
// order and are release stores, so a reader whose acquire load returns any of them also sees that
// sequence change when it loads the sequence again afterwards (acquire: the second load cannot
// move above the payload loads), and discards the copy.
namespace netscore::seqlock {

using Word = std::atomic<std::uint64_t>;
static_assert(Word::is_always_lock_free, "seqlock payload must be lock-free atomics");
static_assert(sizeof(Word) == 8 && alignof(Word) == 8);

template <class T>
inline constexpr std::size_t kWordsOf = (sizeof(T) + 7) / 8;

enum class ReadStatus {
  ok,
  empty,  // nothing was ever written
  busy,   // every bounded attempt met a concurrent write: callers fail open
};

// T <-> words. `needed(begin, end)` says whether bytes [begin, end) of `value` must be stored; a
// word it declines keeps whatever it held (bytes a reader never looks at).
template <class T, class Needed>
void store(Word* dst, const T& value, Needed&& needed) noexcept {
  static_assert(std::is_trivially_copyable_v<T>);
  const auto* bytes = reinterpret_cast<const unsigned char*>(&value);
  for (std::size_t k = 0; k < kWordsOf<T>; ++k) {
    const std::size_t begin = 8 * k;
    const std::size_t end = std::min(begin + 8, sizeof(T));
    if (!needed(begin, end)) continue;
    std::uint64_t word = 0;
    std::memcpy(&word, bytes + begin, end - begin);
    dst[k].store(word, std::memory_order_release);
  }
}

template <class T>
void store(Word* dst, const T& value) noexcept {
  store(dst, value, [](std::size_t, std::size_t) { return true; });
}

// Each word goes straight into `out`: staging them in a buffer and copying that whole would write
// 8-byte stores and read them back as 16-byte loads, a store-forwarding stall per pair that made
// the table's lookup half as fast again.
template <class T>
void load(const Word* src, T& out) noexcept {
  static_assert(std::is_trivially_copyable_v<T>);
  auto* bytes = reinterpret_cast<unsigned char*>(&out);
  for (std::size_t k = 0; k < kWordsOf<T>; ++k) {
    const std::uint64_t word = src[k].load(std::memory_order_acquire);
    std::memcpy(bytes + 8 * k, &word, std::min<std::size_t>(8, sizeof(T) - 8 * k));
  }
}

// The read protocol, once. `read(seq)` copies what the sequence value `seq` names and returns
// false when that value names nothing readable yet (then the attempt is spent without copying).
// Bounded, so a writer that never settles makes readers give up rather than spin. A template so
// the body inlines into the hot lookup.
template <class Read>
ReadStatus read_retrying(const Word& seq, unsigned attempts,
                         Read&& read) noexcept(noexcept(read(std::uint64_t{}))) {
  for (unsigned attempt = 0; attempt < attempts; ++attempt) {
    const std::uint64_t before = seq.load(std::memory_order_acquire);
    if (before == 0) return ReadStatus::empty;
    if (!read(before)) continue;
    if (seq.load(std::memory_order_acquire) == before) return ReadStatus::ok;
  }
  return ReadStatus::busy;
}

// Two copies behind one sequence (Linux raw_write_seqcount_latch), for a single writer that may
// live in another process: copy (seq & 1) is the readable one; the writer fills the other copy,
// then increments seq. Readers never wait for the writer, and a writer killed mid-write leaves seq
// naming the last complete copy. seq == 0: nothing published yet. The copies live wherever the
// caller keeps them (a shared-memory segment): the latch is only the protocol.
struct Latch {
  // The copy the writer fills next (one writer at a time).
  static std::size_t idle_copy(const Word& seq) noexcept {
    return (seq.load(std::memory_order_relaxed) + 1) & 1;
  }
  // Makes the idle copy the readable one; call once it is complete.
  static void publish(Word& seq) noexcept {
    seq.store(seq.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }
  // read_copy(copy) copies copy 0 or 1; it may be called again when a publish overlaps it.
  template <class ReadCopy>
  static ReadStatus read(const Word& seq, unsigned attempts,
                         ReadCopy&& read_copy) noexcept(noexcept(read_copy(std::size_t{}))) {
    return read_retrying(seq, attempts, [&](std::uint64_t before) {
      read_copy(static_cast<std::size_t>(before & 1));
      return true;
    });
  }
};

// One copy of a T behind its own sequence, odd while written, for writers in one process that
// claim the slot with a compare-exchange: any number of threads write slots concurrently, and a
// reader skips a slot being written rather than waiting for it. Cheaper than a latch (one copy)
// where a reader can do without the record now and then.
template <class T>
class Slot {
 public:
  // Holds the slot while write(Word*) stores the words of the new value, each with a release
  // store (store() above, or piecewise for a writer that never stages a whole T). False (nothing
  // written) when another writer holds the slot.
  template <class Write>
  bool try_write(Write&& write) noexcept {
    std::uint64_t seq = seq_.load(std::memory_order_relaxed);
    if ((seq & 1) != 0 || !seq_.compare_exchange_strong(seq, seq + 1, std::memory_order_relaxed)) {
      return false;
    }
    write(words_.data());
    seq_.store(seq + 2, std::memory_order_release);
    return true;
  }
  template <class Needed>
  bool try_store(const T& value, Needed&& needed) noexcept {
    return try_write([&](Word* words) { store(words, value, needed); });
  }
  bool try_store(const T& value) noexcept {
    return try_store(value, [](std::size_t, std::size_t) { return true; });
  }

  // False when never written, or when writers held it through every attempt.
  bool try_load(T& out, unsigned attempts) const noexcept {
    return read_retrying(seq_, attempts, [&](std::uint64_t before) {
             if ((before & 1) != 0) return false;
             load(words_.data(), out);
             return true;
           }) == ReadStatus::ok;
  }

 private:
  Word seq_{0};  // 0: never written; odd: being written
  std::array<Word, kWordsOf<T>> words_{};
};

}  // namespace netscore::seqlock
