#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>

#include "common/table/seqlock.h"

// Layout of the shared-memory score table. Everything here is shared by writer and reader; a
// change to any record below must bump kLayoutVersion.
//
// Segment:  [SegmentHeader][status copy 0][status copy 1][snapshot copy 0][snapshot copy 1]
// Snapshot: [SnapshotMeta][index: index_slots words][entries: capacity x EntryRecord]
//
// Both copies of each part are published with a seqlock::Latch: readers read copy (seq & 1), the
// writer fills the other copy and then increments seq, so a writer killed mid-publish leaves seq
// naming the last complete copy. All payload is stored as seqlock words.
namespace netscore::shm {

inline constexpr std::uint64_t kMagic = 0x314552'4f435354'4eULL;  // "NTSCORE1", written last
inline constexpr std::uint32_t kLayoutVersion = 7;
inline constexpr std::size_t kCacheLine = 64;
inline constexpr std::size_t kMaxNameBytes = 253;  // Kubernetes DNS subdomain limit
inline constexpr std::size_t kNameBytes = 256;
inline constexpr std::size_t kErrorBytes = 256;
inline constexpr std::size_t kDiagnosisBytes = 512;
inline constexpr std::size_t kResourceVersionBytes = 64;

// NodeFigures::flags.
inline constexpr std::uint32_t kEntryValid = 1U;  // raw is a usable number: the node can be scored
inline constexpr std::uint32_t kEntryHasSeries = 2U;  // Prometheus answered a series for this node
// The node exists in the watched Kubernetes API.
inline constexpr std::uint32_t kEntryInCluster = 4U;
// `rule_mask` was computed from the node's labels.
inline constexpr std::uint32_t kEntryLabelsKnown = 8U;
// `rate` holds the average receive rate over the window.
inline constexpr std::uint32_t kEntryRateValid = 16U;
// Where `expected` priced the node's new or gone pods (any combination).
inline constexpr std::uint32_t kEntryPricedByAnnotation = 32U;  // their expected-rate annotation
inline constexpr std::uint32_t kEntryPricedByWorkload = 64U;    // their workload's learned traffic
inline constexpr std::uint32_t kEntryPricedByAverage = 128U;    // the cluster's traffic per pod
// `raw_transmit` holds the configured function over the transmit counter.
inline constexpr std::uint32_t kEntryTransmitValid = 256U;
// `transmit_rate` holds the average transmit rate over the window.
inline constexpr std::uint32_t kEntryTransmitRateValid = 512U;
// Where `speed` came from: the node's speed series, or the configured fallback speed.
inline constexpr std::uint32_t kEntrySpeedMeasured = 1024U;
inline constexpr std::uint32_t kEntrySpeedFallback = 2048U;
// Some matched device reported a link speed that is not positive (node-exporter's -1).
inline constexpr std::uint32_t kEntrySpeedUnusable = 4096U;
// `scored` is link utilisation (rate / speed); otherwise bytes, on the raw basis.
inline constexpr std::uint32_t kEntryUtilisation = 8192U;

// The pricing flags' names, in the order /table and /explain list them.
inline constexpr std::array<std::pair<std::uint32_t, std::string_view>, 3> kPricedBy{
    {{kEntryPricedByAnnotation, "annotation"},
     {kEntryPricedByWorkload, "workload"},
     {kEntryPricedByAverage, "cluster average"}}};

// SnapshotMeta::flags.
// Placement correction applied to corrected_*.
inline constexpr std::uint32_t kSnapshotCorrected = 1U;
// kEntryInCluster and kEntryLabelsKnown are meaningful.
inline constexpr std::uint32_t kSnapshotClusterSynced = 2U;

inline constexpr std::size_t kMaxLabelRules = 64;  // one rule_mask bit each

using seqlock::kWordsOf;
using seqlock::Word;
// Names are stored as bytes and compared as little-endian words (name_chunk).
static_assert(std::endian::native == std::endian::little);

// The figures of one node: what the collector measured and derived, and how the extender reads
// it. The writer and the reader move it whole, so a figure added here reaches every reader without
// touching them. Trivially copyable, stored as words: keep it a multiple of 8 bytes with no
// padding.
struct NodeFigures {
  double raw = 0;  // the query's receive value, as Prometheus returned it
  // The integer the scores are computed from: plugin_score(scored), the Go plugin's int64 Score on
  // the raw basis; utilisation_score(scored) when kEntryUtilisation.
  std::int64_t raw_score = 0;
  std::int64_t node_score = 0;  // 0..100, normalised over the whole cluster
  std::int64_t sample_ms = 0;   // evaluation time of the sample
  double rate = 0;              // average receive rate over the window in bytes/s (kEntryRateValid)
  // Traffic placed pods are expected to add, in scored's unit; 0 without correction.
  double expected = 0;
  // The score integer of scored + expected; equals raw_score when expected is 0.
  std::int64_t corrected_raw_score = 0;
  // 0..100 normalised over the whole cluster from corrected_raw_score.
  std::int64_t corrected_node_score = 0;
  std::uint32_t placed_pods = 0;  // pods counted in `expected`
  std::uint32_t flags = 0;        // kEntry*
  // Bit i: the node's labels satisfy label rule i (kEntryLabelsKnown).
  std::uint64_t rule_mask = 0;
  double raw_transmit = 0;   // the query's transmit value (kEntryTransmitValid)
  double transmit_rate = 0;  // average transmit rate over the window in bytes/s
  double speed = 0;          // link speed in bytes/s (kEntrySpeedMeasured or kEntrySpeedFallback)
  // What the node is scored on, in the snapshot's basis and direction: bytes on the raw basis,
  // rate / speed when kEntryUtilisation.
  double scored = 0;

  bool valid() const noexcept { return (flags & kEntryValid) != 0; }
};

// A table row as stored: the lookup key, then every figure, then the name.
struct EntryRecord {
  std::uint64_t hash;
  std::uint32_t name_len;
  std::uint32_t reserved;
  NodeFigures figures;
  char name[kNameBytes];  // not NUL-terminated; name_len bytes, zero padded
};

struct SnapshotMeta {
  std::uint64_t publish_id;  // 1 for the first snapshot, +1 per publish
  std::int64_t published_wall_ms;
  std::int64_t published_mono_ns;
  std::int64_t eval_time_ms;  // Prometheus evaluation time the snapshot answers for
  std::uint32_t node_count;
  std::uint32_t overflow;  // nodes that did not fit the capacity
  std::uint32_t rejected;  // names too long or duplicated
  std::uint32_t valid_count;
  std::int64_t max_raw_score;
  std::int64_t max_corrected_raw_score;
  std::uint32_t flags;             // kSnapshot*
  std::uint32_t in_cluster_count;  // entries with kEntryInCluster
  std::uint64_t rules_hash;  // label_rules_hash() of the rules rule_mask was computed with; 0: none
  // What one more pod of a workload nobody knows yet adds to a raw-scored node's
  // corrected_raw_score (the correction's price of a pod, kSnapshotCorrected only); 0: unknown.
  // Positive whenever the correction can price a pod, also on the utilisation basis.
  std::int64_t pod_price;
  std::uint32_t basis;      // ScoreBasis the entries were scored on
  std::uint32_t direction;  // Direction they were scored in
  // Bytes/s of such a pod in the direction (busier: the larger of the two): a utilisation-scored
  // node's price is utilisation_score(pod_rate / speed), its unit depending on its speed.
  double pod_rate;
};

// What the collector last did; published separately so a failure is visible without
// republishing the snapshot.
struct CollectorStatus {
  std::int64_t writer_pid;
  std::int64_t refresh_interval_ms;
  std::int64_t refresh_started_wall_ms;
  std::int64_t refresh_finished_wall_ms;
  std::int64_t heartbeat_mono_ns;  // end of the latest refresh attempt
  std::int64_t last_success_wall_ms;
  std::int64_t last_success_mono_ns;
  std::uint64_t consecutive_failures;
  std::uint64_t refreshes_total;
  std::uint64_t failures_total;
  std::int64_t query_duration_us;
  std::uint32_t series_count;    // series in the last successful answer
  std::uint32_t skipped_series;  // series dropped: no node label, duplicate, not a number
  char last_error[kErrorBytes];  // NUL-terminated; empty after a success
  // Why the latest answer held no usable series and what to change (NUL-terminated; empty when
  // fine).
  char diagnosis[kDiagnosisBytes];
  // The Kubernetes API watcher (WatchState); all zero when watching is off.
  std::uint32_t watch_state;
  std::uint32_t watch_nodes;       // nodes known from the API
  std::uint32_t watch_pods;        // bound pods tracked
  std::uint32_t watch_placements;  // pods currently counted in a correction
  std::uint64_t watch_errors_total;
  std::uint64_t watch_relists_total;
  std::int64_t watch_synced_wall_ms;      // when the latest full list completed
  std::int64_t watch_last_event_wall_ms;  // latest event or bookmark
  std::int64_t watch_last_event_mono_ns;
  char watch_resource_version[kResourceVersionBytes];  // NUL-terminated
  char watch_error[kErrorBytes];                       // NUL-terminated; empty while healthy
  // Requests asked apart from the refresh's query (node-label layout, recording rules, link
  // speeds) since the collector started, and those of them without a usable answer.
  std::uint64_t side_requests_total;
  std::uint64_t side_requests_failed_total;
  // Evaluation time of the link speeds in use (Unix ms; they are asked apart and cached); 0: none.
  std::int64_t link_speeds_eval_wall_ms;
  // The traffic per pod from cAdvisor's series (PodTrafficState), the pods of its last read, those
  // of them that are watched pods off the host network, and the read's evaluation time (Unix ms;
  // 0: never read).
  std::uint32_t pod_traffic_state;
  std::uint32_t pod_traffic_pods;
  std::uint32_t pod_traffic_watched;
  std::uint32_t pod_traffic_reserved;  // zero; keeps the next field 8-byte aligned
  std::int64_t pod_traffic_eval_wall_ms;
};

// Whether the traffic per pod is read. `absent`: Prometheus has no per-pod series with pod labels
// (the container runtime fills none), so the collector reads none.
enum class PodTrafficState : std::uint32_t { off = 0, unchecked = 1, absent = 2, in_use = 3 };

constexpr std::string_view pod_traffic_state_name(std::uint32_t state) {
  switch (static_cast<PodTrafficState>(state)) {
    case PodTrafficState::off:
      return "off";
    case PodTrafficState::unchecked:
      return "unchecked";
    case PodTrafficState::absent:
      return "absent";
    case PodTrafficState::in_use:
      return "in use";
  }
  return "unknown";
}

enum class WatchState : std::uint32_t { off = 0, syncing = 1, synced = 2, failing = 3 };

// The state's name in logs, /table and /metrics; "unknown" for a value no collector writes.
constexpr std::string_view watch_state_name(std::uint32_t state) {
  switch (static_cast<WatchState>(state)) {
    case WatchState::off:
      return "off";
    case WatchState::syncing:
      return "syncing";
    case WatchState::synced:
      return "synced";
    case WatchState::failing:
      return "failing";
  }
  return "unknown";
}

static_assert(std::is_trivially_copyable_v<NodeFigures> && sizeof(NodeFigures) % 8 == 0);
static_assert(std::is_trivially_copyable_v<EntryRecord> && sizeof(EntryRecord) % 8 == 0);
static_assert(std::is_trivially_copyable_v<SnapshotMeta> && sizeof(SnapshotMeta) % 8 == 0);
static_assert(std::is_trivially_copyable_v<CollectorStatus> && sizeof(CollectorStatus) % 8 == 0);
// Every number before the name, and all of them in the record's first two cache lines: a lookup
// loads the key, the name's first words and the figures, nothing further.
static_assert(offsetof(EntryRecord, figures) == 16 && offsetof(EntryRecord, figures) % 8 == 0);
static_assert(offsetof(EntryRecord, name) == offsetof(EntryRecord, figures) + sizeof(NodeFigures));
static_assert(offsetof(EntryRecord, name) <= 2 * kCacheLine);

struct SegmentHeader {
  Word magic;
  std::uint32_t layout_version;
  std::uint32_t header_bytes;
  std::uint64_t segment_bytes;
  std::uint32_t capacity;
  std::uint32_t index_slots;
  std::uint64_t status_offset[2];
  std::uint64_t snapshot_offset[2];
  std::int64_t created_wall_ms;
  // Each sequence on its own cache line: readers poll them while the writer stores payload.
  alignas(kCacheLine) Word snapshot_seq;
  alignas(kCacheLine) Word status_seq;
};

static_assert(std::is_standard_layout_v<SegmentHeader>);
static_assert(offsetof(SegmentHeader, magic) == 0);
static_assert(offsetof(SegmentHeader, snapshot_seq) == 128);
static_assert(offsetof(SegmentHeader, status_seq) == 192);
static_assert(sizeof(SegmentHeader) == 256);

// Offsets (bytes from the segment start) of every part, derived from the capacity alone, so a
// reader can recompute and check what the header claims.
struct Layout {
  std::uint32_t capacity = 0;
  std::uint32_t index_slots = 0;  // power of two, >= 2 x capacity: load factor <= 0.5
  std::size_t status_bytes = 0;
  std::size_t snapshot_bytes = 0;
  std::size_t status_offset[2] = {};
  std::size_t snapshot_offset[2] = {};
  std::size_t segment_bytes = 0;

  static constexpr std::size_t kMetaWords = kWordsOf<SnapshotMeta>;
  static constexpr std::size_t kEntryWords = kWordsOf<EntryRecord>;

  std::size_t index_word(std::size_t copy) const { return snapshot_offset[copy] / 8 + kMetaWords; }
  std::size_t entry_word(std::size_t copy, std::size_t i) const {
    return index_word(copy) + index_slots + i * kEntryWords;
  }
};

inline constexpr std::uint32_t kMaxCapacity = 1U << 20;

inline Layout compute_layout(std::uint32_t capacity) {
  if (capacity == 0 || capacity > kMaxCapacity)
    throw std::invalid_argument("table capacity out of range");
  const auto round_up = [](std::size_t n) {
    return (n + kCacheLine - 1) / kCacheLine * kCacheLine;
  };
  Layout l;
  l.capacity = capacity;
  l.index_slots = 1;
  while (l.index_slots < 2 * capacity) l.index_slots <<= 1;
  l.status_bytes = round_up(sizeof(CollectorStatus));
  l.snapshot_bytes = round_up(sizeof(SnapshotMeta) + std::size_t{l.index_slots} * 8 +
                              std::size_t{capacity} * sizeof(EntryRecord));
  std::size_t at = round_up(sizeof(SegmentHeader));
  for (auto& off : l.status_offset) {
    off = at;
    at += l.status_bytes;
  }
  for (auto& off : l.snapshot_offset) {
    off = at;
    at += l.snapshot_bytes;
  }
  l.segment_bytes = at;
  return l;
}

// The 8-byte chunk of `name` at `at`, zero padded past the end. A fixed-size memcpy compiles to
// one load; the variable-size one for the tail would be a libc call per chunk.
inline std::uint64_t name_chunk(std::string_view name, std::size_t at) {
  std::uint64_t chunk = 0;
  if (name.size() - at >= 8) {
    std::memcpy(&chunk, name.data() + at, 8);
  } else {
    for (std::size_t i = at; i < name.size(); ++i) {
      chunk |= std::uint64_t{static_cast<unsigned char>(name[i])} << (8 * (i - at));
    }
  }
  return chunk;
}

// Hash of a node name over 8-byte little-endian chunks (zero padded), so the writer and the
// reader agree whatever buffer the name comes from. Part of the layout: changing it bumps
// kLayoutVersion.
inline std::uint64_t name_hash(std::string_view name) {
  std::uint64_t h = 0x9E3779B97F4A7C15ULL ^ (name.size() * 0xC2B2AE3D27D4EB4FULL);
  for (std::size_t at = 0; at < name.size(); at += 8) {
    h = (h ^ name_chunk(name, at)) * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 29;
  }
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDULL;
  h ^= h >> 33;
  return h == 0 ? 1 : h;
}

// Index slot: high 32 bits = hash tag, low 32 bits = entry index + 1; 0 = empty.
inline std::uint64_t index_slot(std::uint64_t hash, std::uint32_t entry) {
  return (hash & 0xFFFFFFFF00000000ULL) | (std::uint64_t{entry} + 1);
}

class TableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace netscore::shm
