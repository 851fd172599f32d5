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

#include "common/model/name_hash.h"
#include "common/model/table_records.h"
#include "common/table/seqlock.h"

// Layout of the shared-memory score table. Everything here is shared by writer and reader; a
// change to any record below must bump kLayoutVersion.
//
// Segment:  [SegmentHeader][status copy 0][status copy 1][snapshot copy 0][snapshot copy 1]
//           [placements: kPlacementSlots x (sequence word, PlacementRecord)]
// Snapshot: [SnapshotMeta][index: index_slots words][entries: capacity x EntryRecord]
//
// Both copies of each part are published with a seqlock::Latch: readers read copy (seq & 1), the
// writer fills the other copy and then increments seq, so a writer killed mid-publish leaves seq
// naming the last complete copy. The recent placements are a ring of single-copy slots, each
// behind its own sequence (odd while written, as seqlock::Slot): a reader skips a slot being
// written. All payload is stored as seqlock words.
namespace netscore::shm {

inline constexpr std::uint64_t kMagic = 0x314552'4f435354'4eULL;  // "NTSCORE1", written last
inline constexpr std::uint32_t kLayoutVersion = 11;
inline constexpr std::size_t kCacheLine = 64;
inline constexpr std::size_t kMaxNameBytes = 253;  // Kubernetes DNS subdomain limit
inline constexpr std::size_t kNameBytes = 256;
inline constexpr std::size_t kErrorBytes = 256;
inline constexpr std::size_t kDiagnosisBytes = 512;
inline constexpr std::size_t kResourceVersionBytes = 64;
inline constexpr std::uint32_t kPlacementSlots = 256;  // recent placements kept, cluster-wide
inline constexpr std::size_t kPodNameBytes = 128;      // of "namespace/name"; longer ones cut

// The model's records, stored as they are.
using model::kEntryHasSeries;
using model::kEntryInCluster;
using model::kEntryLabelsKnown;
using model::kEntryPricedByAnnotation;
using model::kEntryPricedByAverage;
using model::kEntryPricedByCeiling;
using model::kEntryPricedByMeasurement;
using model::kEntryPricedByWorkload;
using model::kEntryPricedByWorkloadMeasurement;
using model::kEntryRateValid;
using model::kEntrySpeedFallback;
using model::kEntrySpeedMeasured;
using model::kEntrySpeedUnusable;
using model::kEntryTransmitRateValid;
using model::kEntryTransmitValid;
using model::kEntryUtilisation;
using model::kEntryValid;
using model::kMaxLabelRules;
using model::kPricedBy;
using model::kSnapshotClusterSynced;
using model::kSnapshotCorrected;
using model::name_chunk;
using model::name_hash;
using model::NodeFigures;
using model::pack_priced_by;
using model::SnapshotMeta;
using model::unpack_priced_by;

using seqlock::kWordsOf;
using seqlock::Word;
// Names are stored as bytes and compared as little-endian words (name_chunk).
static_assert(std::endian::native == std::endian::little);

// A table row as stored: the lookup key, then every figure, then the name.
struct EntryRecord {
  std::uint64_t hash;
  std::uint32_t name_len;
  std::uint32_t reserved;
  NodeFigures figures;
  char name[kNameBytes];  // not NUL-terminated; name_len bytes, zero padded
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
  // 0: never read). Then the read of recently placed pods by name between those reads: the pods
  // it prices (placed since the last read of every pod, with series) and its evaluation time.
  std::uint32_t pod_traffic_state;
  std::uint32_t pod_traffic_pods;
  std::uint32_t pod_traffic_watched;
  std::uint32_t pod_traffic_recent_pods;
  std::int64_t pod_traffic_eval_wall_ms;
  std::int64_t pod_traffic_recent_eval_wall_ms;
  // NETSCORE_REBALANCE_LABEL: the pods labelled for the descheduler at the latest look, and the
  // label patches since the collector started, answered 200 or not (a vanished pod's 404 is
  // neither); all zero when off.
  std::uint32_t rebalance_nominees;
  std::uint32_t rebalance_reserved;  // zero; keeps the next field 8-byte aligned
  std::uint64_t rebalance_patches_total;
  std::uint64_t rebalance_patch_failures_total;
};

// One recent placement: a pod the collector counts as placed within the window, the source and
// the rate of its price in each direction. Written when the collector first publishes with the
// pod counted, and again whenever the source of either price changes; a reader keeps a pod's
// latest record.
struct PlacementRecord {
  std::uint64_t number;  // 1 for the first record ever written; slot (number - 1) % kPlacementSlots
  std::int64_t placed_wall_ms;   // when the collector counts it placed from (its binding)
  std::int64_t written_wall_ms;  // when this record was written
  std::uint64_t node_hash;       // name_hash(node)
  double receive_rate;           // bytes/s; < 0: the cluster's traffic per pod (SnapshotMeta)
  double transmit_rate;
  std::uint32_t receive_priced_by;  // one kEntryPricedBy* flag
  std::uint32_t transmit_priced_by;
  std::uint32_t node_len;
  std::uint32_t pod_len;  // of the whole name; the first kPodNameBytes bytes are stored
  char node[kNameBytes];  // not NUL-terminated, zero padded
  char pod[kPodNameBytes];
};

// Sets a record's node (its name, at most kMaxNameBytes, and hash) and its pod's name.
inline void set_placement_names(PlacementRecord& r, std::string_view node,
                                std::string_view pod) noexcept {
  const std::size_t node_len = node.size() < kMaxNameBytes ? node.size() : kMaxNameBytes;
  r.node_hash = name_hash(node);
  r.node_len = static_cast<std::uint32_t>(node_len);
  std::memcpy(r.node, node.data(), node_len);
  r.pod_len = static_cast<std::uint32_t>(pod.size());
  std::memcpy(r.pod, pod.data(), pod.size() < kPodNameBytes ? pod.size() : kPodNameBytes);
}

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
static_assert(std::is_trivially_copyable_v<PlacementRecord> && sizeof(PlacementRecord) % 8 == 0);
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
  std::uint64_t placements_offset;
  // Each sequence on its own cache line: readers poll them while the writer stores payload.
  alignas(kCacheLine) Word snapshot_seq;
  alignas(kCacheLine) Word status_seq;
  // Placement records written so far (PlacementRecord::number of the latest).
  alignas(kCacheLine) Word placements_written;
};

static_assert(std::is_standard_layout_v<SegmentHeader>);
static_assert(offsetof(SegmentHeader, magic) == 0);
static_assert(offsetof(SegmentHeader, snapshot_seq) == 128);
static_assert(offsetof(SegmentHeader, status_seq) == 192);
static_assert(offsetof(SegmentHeader, placements_written) == 256);
static_assert(sizeof(SegmentHeader) == 320);

// Offsets (bytes from the segment start) of every part, derived from the capacity alone, so a
// reader can recompute and check what the header claims.
struct Layout {
  std::uint32_t capacity = 0;
  std::uint32_t index_slots = 0;  // power of two, >= 2 x capacity: load factor <= 0.5
  std::size_t status_bytes = 0;
  std::size_t snapshot_bytes = 0;
  std::size_t status_offset[2] = {};
  std::size_t snapshot_offset[2] = {};
  std::size_t placements_offset = 0;
  std::size_t segment_bytes = 0;

  static constexpr std::size_t kMetaWords = kWordsOf<SnapshotMeta>;
  static constexpr std::size_t kEntryWords = kWordsOf<EntryRecord>;
  // A placement slot: its sequence word, then the record.
  static constexpr std::size_t kPlacementSlotWords = 1 + kWordsOf<PlacementRecord>;

  std::size_t index_word(std::size_t copy) const { return snapshot_offset[copy] / 8 + kMetaWords; }
  std::size_t entry_word(std::size_t copy, std::size_t i) const {
    return index_word(copy) + index_slots + i * kEntryWords;
  }
  std::size_t placement_word(std::uint64_t number) const {
    return placements_offset / 8 + (number - 1) % kPlacementSlots * kPlacementSlotWords;
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
  l.placements_offset = at;
  at += round_up(std::size_t{kPlacementSlots} * Layout::kPlacementSlotWords * 8);
  l.segment_bytes = at;
  return l;
}

// Index slot: high 32 bits = hash tag, low 32 bits = entry index + 1; 0 = empty.
inline std::uint64_t index_slot(std::uint64_t hash, std::uint32_t entry) {
  return (hash & 0xFFFFFFFF00000000ULL) | (std::uint64_t{entry} + 1);
}
// The entry index a slot names; an empty slot names none below any entry count.
inline std::uint64_t index_entry(std::uint64_t slot) {
  return (slot & 0xFFFFFFFFU) - 1;
}

class TableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace netscore::shm
