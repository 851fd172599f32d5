#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "common/config.h"
#include "common/table/score_table_reader.h"
#include "extender/scheduler/decision_log.h"
#include "extender/scheduler/freshness.h"
#include "extender/scheduler/protocol.h"

// Recording the scheduler-facing answers into the DecisionLog, on the scheduler's path: allocates
// nothing. Thread-safe: the log is.
namespace netscore::extender {

// `percent`: score_nodes's 0..100 per node (-1: neutral). `unfiltered`: the filter's failures, in
// index order, of a pod whose constraints no filter call enforced (answered 0; see Handlers).
void record_prioritize(DecisionLog& log, const ExtenderConfig& config, const ExtenderArgs& args,
                       const Lookup& lookup, std::span<const NodeScore> found,
                       std::span<const std::int64_t> scores, std::span<const std::int16_t> percent,
                       std::span<const FailedNode> unfiltered) noexcept;

void record_filter(DecisionLog& log, const ExtenderArgs& args, const Lookup& lookup,
                   std::span<const NodeScore> found, std::span<const std::size_t> passed,
                   std::span<const FailedNode> failed) noexcept;

}  // namespace netscore::extender
