#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "common/config.h"
#include "common/table/seqlock.h"
#include "extender/scheduler/request.h"
#include "extender/scheduler/freshness.h"

// The decisions behind GET /explain: what netscore answered for which pod, node by node.
namespace netscore::extender {

// Text kept inline in a record: the first N bytes plus the full length, so a reader can tell
// when it was cut. Trivially copyable.
template <std::size_t N>
struct FixedText {
  std::uint32_t length = 0;
  char bytes[N] = {};
  void set(std::string_view s) noexcept {
    length = static_cast<std::uint32_t>(std::min<std::size_t>(s.size(), UINT32_MAX));
    if (!s.empty())
      std::memcpy(bytes, s.data(), std::min(s.size(), N));  // an empty view may hold nullptr
  }
  std::string_view view() const noexcept { return {bytes, std::min<std::size_t>(length, N)}; }
  bool truncated() const noexcept { return length > N; }
};

enum class FilterVerdict : std::uint8_t {
  none,  // a prioritize decision
  passed,
  failed,  // NodeDecision::reason says why
};
std::string_view to_string(FilterVerdict v);

// One node of one decision. A plain trivially copyable struct: add fields freely, the log copies
// it as words. Sizes are bounded so a record has a fixed size.
struct NodeDecision {
  double seed_raw = 0;    // the table's raw value (bytes over the window)
  double correction = 0;  // placement correction added to seed_raw (0: none)
  double rate = -1;       // average receive rate over the window in bytes/s; -1: unknown
  // What the node was scored on: bytes, or its link utilisation when `utilisation`.
  double scored = 0;
  double speed = -1;  // link speed in bytes/s; -1: unknown
  std::int16_t score =
      -1;  // 0..100 used for this answer; -1: none (unknown node or table not fresh)
  std::int8_t extender_score = -1;  // 0..10 returned by prioritize; -1 for filter
  FilterVerdict verdict = FilterVerdict::none;
  bool found = false;          // present in the table snapshot
  bool valid = false;          // the collector marked its value usable
  std::uint8_t priced_by = 0;  // shm::pack_priced_by() of `correction`'s pricing flags
  bool utilisation = false;    // scored on link utilisation (shm::kEntryUtilisation), else bytes
  FixedText<64> name;          // Kubernetes allows 253; longer names are shown cut
  FixedText<128> reason;       // filter failure reason
};

// The words of a NodeDecision its record must store, [0, head_end) and [reason_begin,
// reason_end); the rest may keep an older record's bytes: the text past each FixedText's length
// is never shown, so most records are written as two cache lines instead of four.
struct NeededWords {
  std::size_t head_end, reason_begin, reason_end;
};
inline NeededWords needed_words(const NodeDecision& n) noexcept {
  constexpr auto words_to = [](std::size_t bytes) { return (bytes + 7) / 8; };
  constexpr std::size_t name_bytes = offsetof(NodeDecision, name) + offsetof(FixedText<64>, bytes);
  constexpr std::size_t reason = offsetof(NodeDecision, reason);
  constexpr std::size_t reason_bytes = reason + offsetof(FixedText<128>, bytes);
  return {words_to(name_bytes + n.name.view().size()), reason / 8,
          words_to(reason_bytes + n.reason.view().size())};
}

// What the request was and the table state it was answered from.
struct DecisionHeader {
  std::uint64_t ticket = 0;  // 1, 2, ...: order of recording; set by DecisionLog
  std::int64_t wall_ms = 0;
  std::int64_t table_age_ns = 0;
  std::uint64_t publish_id = 0;
  std::uint64_t node_start = 0;  // first node block; set by DecisionLog
  std::uint32_t nodes_asked = 0;
  std::uint32_t nodes_recorded =
      0;  // at most half the node records, so one huge request cannot erase all others
  Verb verb = Verb::other;
  Freshness freshness = Freshness::detached;
  Normalisation normalisation = Normalisation::request;
  FixedText<64> pod_namespace;  // Kubernetes limits: 63, 253, 36
  FixedText<256> pod_name;
  FixedText<40> pod_uid;
};

struct Decision {
  DecisionHeader header;
  std::vector<NodeDecision> nodes;
  std::uint32_t nodes_overwritten = 0;  // recorded, but their records were reused since
};

// Node records are stored kNodesPerBlock at a time, one seqlock::Slot per block: a decision's
// nodes fill whole blocks of their own, so a writer claims a block (a compare-exchange) once per
// kNodesPerBlock nodes rather than once per node, which was most of what recording cost.
inline constexpr std::size_t kNodesPerBlock = 8;

struct NodeBlock {
  std::uint64_t ticket = 0;  // the decision its nodes belong to
  NodeDecision nodes[kNodesPerBlock];
};

// A fixed ring of decisions plus a fixed ring of node blocks, both allocated once. Recording takes
// no lock and allocates nothing: two fetch_adds claim a decision slot and a run of node blocks,
// each a seqlock::Slot, so any number of server threads record concurrently and /explain reads
// without stopping them. A reader keeps only records whose slot did not move while it copied them
// and whose ticket matches; a slot another writer is still filling is skipped, never torn.
// Thread-safe.
class DecisionLog {
 public:
  // decisions == 0: disabled, record() does nothing. `nodes` is rounded up to whole blocks.
  DecisionLog(std::uint32_t decisions, std::uint32_t nodes);
  bool enabled() const noexcept { return !decisions_.empty(); }
  std::size_t decision_capacity() const noexcept { return decisions_.size(); }
  std::size_t node_capacity() const noexcept { return blocks_.size() * kNodesPerBlock; }

  // Records one decision of `count` nodes; fill(i, NodeDecision&) describes node i (the record
  // arrives with every field at its default and both texts empty; the text bytes past a length
  // are unspecified, as FixedText::set leaves them). Ticket, node_start and the counts in `header`
  // are set here.
  template <class Fill>
  void record(DecisionHeader header, std::size_t count, Fill&& fill) noexcept {
    if (!enabled()) return;
    const std::size_t kept =
        std::min(count, std::max<std::size_t>(1, blocks_.size() / 2) * kNodesPerBlock);
    const std::size_t blocks = (kept + kNodesPerBlock - 1) / kNodesPerBlock;
    header.nodes_asked = static_cast<std::uint32_t>(count);
    header.nodes_recorded = static_cast<std::uint32_t>(kept);
    header.node_start = block_cursor_.fetch_add(blocks, std::memory_order_relaxed);
    header.ticket = tickets_.fetch_add(1, std::memory_order_relaxed) + 1;
    NodeDecision n{};
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t first = b * kNodesPerBlock;
      const std::size_t filled = std::min(kNodesPerBlock, kept - first);
      blocks_[(header.node_start + b) % blocks_.size()].try_write([&](seqlock::Word* words) {
        words[0].store(header.ticket, std::memory_order_release);
        for (std::size_t k = 0; k < filled; ++k) {
          fill(first + k, n);
          store_node(words + kFirstNodeWord + k * kWordsPerNode, n);
          reset_fields(n);
        }
      });
    }
    if (!decisions_[header.ticket % decisions_.size()].try_store(header)) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
    }
  }

  // The latest `limit` decisions for the pod, newest first. A non-empty uid matches the uid;
  // otherwise namespace and name match.
  std::vector<Decision> find(std::string_view pod_namespace, std::string_view pod_name,
                             std::string_view uid, std::size_t limit) const;

  std::uint64_t recorded() const noexcept { return tickets_.load(std::memory_order_relaxed); }
  // Decisions lost because their slot was still being written by a writer a full ring behind.
  std::uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }

 private:
  static constexpr std::size_t kFirstNodeWord = offsetof(NodeBlock, nodes) / 8;
  static constexpr std::size_t kWordsPerNode = sizeof(NodeDecision) / 8;
  static_assert(offsetof(NodeBlock, ticket) == 0 && offsetof(NodeBlock, nodes) % 8 == 0 &&
                sizeof(NodeDecision) % 8 == 0);

  // Back to a fresh record's fields and empty texts, without zeroing the 192 text bytes a fresh
  // record would clear: bytes past a text's length are never shown.
  static void reset_fields(NodeDecision& n) noexcept {
    static constexpr NodeDecision kFresh{};
    std::memcpy(static_cast<void*>(&n), &kFresh, offsetof(NodeDecision, name));
    n.name.length = 0;
    n.reason.length = 0;
  }

  // The release stores of seqlock::store, for the words needed_words names.
  static void store_node(seqlock::Word* dst, const NodeDecision& n) noexcept {
    const auto* bytes = reinterpret_cast<const unsigned char*>(&n);
    const auto store_words = [&](std::size_t begin, std::size_t end) {
      for (std::size_t w = begin; w < end; ++w) {
        std::uint64_t word;
        std::memcpy(&word, bytes + 8 * w, 8);
        dst[w].store(word, std::memory_order_release);
      }
    };
    const NeededWords needed = needed_words(n);
    store_words(0, needed.head_end);
    store_words(needed.reason_begin, needed.reason_end);
  }

  void load_nodes(Decision& d) const;

  std::vector<seqlock::Slot<DecisionHeader>> decisions_;
  std::vector<seqlock::Slot<NodeBlock>> blocks_;
  std::atomic<std::uint64_t> tickets_{0};
  std::atomic<std::uint64_t> block_cursor_{0};
  std::atomic<std::uint64_t> dropped_{0};
};

// The configuration reference quotes these sizes.
static_assert(sizeof(seqlock::Slot<DecisionHeader>) == kExplainDecisionBytes);
static_assert(sizeof(seqlock::Slot<NodeBlock>) == kExplainNodeBytes * kNodesPerBlock);

}  // namespace netscore::extender
