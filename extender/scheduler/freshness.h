#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/config.h"
#include "common/table/score_table_reader.h"

// Whether the table may steer pods: one consistent snapshot read and its freshness. Pure functions
// over their arguments: thread-safe.
namespace netscore::extender {

enum class Freshness { fresh, stale, empty, busy, detached };

std::string_view to_string(Freshness f);

struct Lookup {
  Freshness freshness = Freshness::detached;
  shm::SnapshotMeta meta{};
  std::int64_t age_ns = 0;  // now - published_mono_ns; meaningful when a snapshot was read
};

// Looks every name up in one consistent snapshot and decides freshness: no reader → detached,
// nothing published → empty, a read that kept meeting publishes → busy, snapshot older than
// max_age by CLOCK_MONOTONIC, or a collector failing since longer than max_age → stale. Only
// `fresh` data may steer a pod. `hashes` is empty or holds shm::name_hash of every name.
Lookup lookup_nodes(const ScoreTableReader* table, std::span<const std::string_view> names,
                    std::span<const std::uint64_t> hashes, std::span<NodeScore> out,
                    std::int64_t now_mono_ns, std::int64_t max_age_ns) noexcept;

// NETSCORE_MAX_AGE in nanoseconds, the unit lookup_nodes compares ages in.
std::int64_t max_age_ns(const Config& config) noexcept;

// Why a stale table is stale, for people: "no successful refresh for 75.0s, over <limit>".
std::string stale_for(std::int64_t age_ns, std::string_view limit);

}  // namespace netscore::extender
