#include "extender/scheduler/decision_recording.h"

#include "common/clock.h"
#include "common/model/figures.h"

namespace netscore::extender {
namespace {

DecisionHeader header_for(Verb verb, const ExtenderArgs& args, const Lookup& lookup) noexcept {
  DecisionHeader h;
  h.verb = verb;
  h.wall_ms = wall_now_ms();
  h.freshness = lookup.freshness;
  h.table_age_ns = lookup.age_ns;
  h.publish_id = lookup.meta.publish_id;
  h.pod_namespace.set(args.pod_namespace);
  h.pod_name.set(args.pod_name);
  h.pod_uid.set(args.pod_uid);
  return h;
}

void describe_node(NodeDecision& n, std::string_view name, const NodeScore& score) noexcept {
  n.name.set(name);
  n.found = score.found;
  n.valid = score.valid();
  n.seed_raw = score.raw;
  n.correction = score.expected;
  n.priced_by = shm::pack_priced_by(score.flags);
  n.rate = (score.flags & shm::kEntryRateValid) != 0 ? score.rate : -1;
  n.scored = score.scored;
  n.speed = model::link_speed(score).value_or(-1);
  n.utilisation = model::scored_on_utilisation(score);
}

}  // namespace

void record_prioritize(DecisionLog& log, const ExtenderConfig& config, const ExtenderArgs& args,
                       const Lookup& lookup, std::span<const NodeScore> found,
                       std::span<const std::int64_t> scores, std::span<const std::int16_t> percent,
                       std::span<const FailedNode> unfiltered) noexcept {
  if (!log.enabled()) return;
  DecisionHeader h = header_for(Verb::prioritize, args, lookup);
  h.normalisation = config.normalisation;
  // record() fills nodes in index order and the filter lists failures in index order: one cursor.
  std::size_t next_failed = 0;
  log.record(h, args.names.size(), [&](std::size_t i, NodeDecision& n) {
    describe_node(n, args.names[i], found[i]);
    n.extender_score = static_cast<std::int8_t>(scores[i]);
    n.score = percent[i];
    while (next_failed < unfiltered.size() && unfiltered[next_failed].index < i) ++next_failed;
    if (next_failed < unfiltered.size() && unfiltered[next_failed].index == i) {
      n.verdict = FilterVerdict::failed;
      n.reason.set(unfiltered[next_failed].reason);
    }
  });
}

void record_filter(DecisionLog& log, const ExtenderArgs& args, const Lookup& lookup,
                   std::span<const NodeScore> found, std::span<const std::size_t> passed,
                   std::span<const FailedNode> failed) noexcept {
  if (!log.enabled()) return;
  const DecisionHeader h = header_for(Verb::filter, args, lookup);
  // A filter that needed no table (the pod asks for nothing netscore checks) looked nothing up.
  static const NodeScore not_looked_up{};
  const auto score_of = [&](std::size_t index) -> const NodeScore& {
    return index < found.size() ? found[index] : not_looked_up;
  };
  // Failing nodes first, then passing ones: a decision cut to its first nodes keeps the failures.
  log.record(h, passed.size() + failed.size(), [&](std::size_t i, NodeDecision& n) {
    if (i < failed.size()) {
      describe_node(n, args.names[failed[i].index], score_of(failed[i].index));
      n.verdict = FilterVerdict::failed;
      n.reason.set(failed[i].reason);
    } else {
      const std::size_t index = passed[i - failed.size()];
      describe_node(n, args.names[index], score_of(index));
      n.verdict = FilterVerdict::passed;
    }
  });
}

}  // namespace netscore::extender
