#include "extender/scheduler/filter.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "common/parse_number.h"
#include "common/quantity.h"
#include "common/model/figures.h"
#include "extender/scheduler/link_figures.h"

namespace netscore::extender {
namespace {

// The scheduler passes filter messages through fmt.Errorf on some paths; a '%' would garble them.
std::string without_percent(std::string s) {
  std::replace(s.begin(), s.end(), '%', '?');
  return s;
}

// reasons_ holds these, then one per label rule (kSlots + rule index).
enum ReasonSlot : std::size_t {
  kLabelsUnknown,
  kRateAbove,
  kTransmitRateAbove,
  kUtilisationAbove,
  kUtilisationUnknown,  // the node has no link speed (or no rate in the direction)
  kCannotCheckCeiling,  // the table is not fresh
  kPodError,
  kSlots
};

// A fraction of the link ("0.8") or a percent of it ("80%"), from 0 to 1; nullopt otherwise.
std::optional<double> parse_utilisation(std::string_view text) {
  const bool percent = !text.empty() && text.back() == '%';
  if (percent) text.remove_suffix(1);
  std::optional<double> value = parse_number<double>(text);
  if (!value || *value < 0) return std::nullopt;
  if (percent) *value /= 100;
  if (*value > 1) return std::nullopt;
  return value;
}

std::string_view utilisation_side(Direction direction) {
  switch (direction) {
    case Direction::receive:
      return "receive";
    case Direction::transmit:
      return "transmit";
    case Direction::max:
      return "max-direction";
  }
  return "receive";
}

}  // namespace

void Filter::warn_once_about(const Lookup& lookup) {
  if ((lookup.meta.flags & shm::kSnapshotClusterSynced) == 0) {
    if (!warned_unsynced_) {
      spdlog::warn(
          "label rules need node labels: "
          "with nodeCacheCapable: true the collector must watch the Kubernetes API "
          "(its table has no synced node labels); "
          "pods the rules select pass every node until then");
    }
    warned_unsynced_ = true;
  } else if (lookup.meta.rules_hash != config_.label_rules.hash &&
             warned_rules_hash_ != lookup.meta.rules_hash) {
    warned_rules_hash_ = lookup.meta.rules_hash;
    spdlog::warn(
        "label rules differ between collector and extender: "
        "set the same NETSCORE_LABEL_RULES in both; node labels count as unknown until then");
  }
}

Filter::PodAsks Filter::asks(const ExtenderArgs& args) const {
  const LabelRules& rules = config_.label_rules;
  return {.required = rules.empty() ? 0 : pod_rule_mask(rules, args.pod_annotations),
          .rate_text = find_value(args.pod_annotations, kMaxReceiveRateAnnotation),
          .transmit_rate_text = find_value(args.pod_annotations, kMaxTransmitRateAnnotation),
          .utilisation_text = find_value(args.pod_annotations, kMaxUtilisationAnnotation),
          .removed = find_value(args.pod_annotations, kRemovedCeilingAnnotation).has_value()};
}

bool Filter::constrains(const ExtenderArgs& args) const {
  return asks(args).any();
}

// A node without a figure passes the rate ceilings (as it always has); a node without a
// utilisation cannot be checked, which closed fails.
std::string_view Filter::above_ceiling(std::string_view name, const NodeScore& s, const Ceilings& c,
                                       Direction direction, bool closed) const {
  if (c.receive && (s.flags & shm::kEntryRateValid) != 0 && s.rate > *c.receive) {
    spdlog::debug("filter node={} rate={:.0f}B/s above ceiling={:.0f}B/s", name, s.rate,
                  *c.receive);
    return reasons_[kRateAbove];
  }
  if (c.transmit && (s.flags & shm::kEntryTransmitRateValid) != 0 &&
      s.transmit_rate > *c.transmit) {
    spdlog::debug("filter node={} transmit_rate={:.0f}B/s above ceiling={:.0f}B/s", name,
                  s.transmit_rate, *c.transmit);
    return reasons_[kTransmitRateAbove];
  }
  if (c.utilisation) {
    const auto utilisation = model::utilisation_in(s, direction);
    if (!utilisation) return closed ? reasons_[kUtilisationUnknown] : std::string_view{};
    if (*utilisation > *c.utilisation) {
      spdlog::debug("filter node={} utilisation={:g} above ceiling={:g}", name, *utilisation,
                    *c.utilisation);
      return reasons_[kUtilisationAbove];
    }
  }
  return {};
}

void Filter::fail_all(std::string reason, std::size_t n, FilterOutcome& outcome) {
  reasons_[kPodError] = without_percent(std::move(reason));
  for (std::size_t i = 0; i < n; ++i) outcome.failed.push_back({i, reasons_[kPodError]});
}

std::optional<Filter::Ceilings> Filter::parse_ceilings(const PodAsks& pod, std::size_t n,
                                                       FilterOutcome& outcome) {
  Ceilings c;
  for (const auto& [text, annotation, limit] :
       {std::tuple(pod.rate_text, kMaxReceiveRateAnnotation, &c.receive),
        std::tuple(pod.transmit_rate_text, kMaxTransmitRateAnnotation, &c.transmit)}) {
    if (!text) continue;
    *limit = parse_quantity(*text);
    if (!*limit) {
      fail_all(fmt::format(
                   "netscore: annotation {}=\"{}\" is not bytes per second (e.g. 2000000 or 10Mi)",
                   annotation, text->substr(0, 64)),
               n, outcome);
      return std::nullopt;
    }
  }
  if (pod.utilisation_text) {
    c.utilisation = parse_utilisation(*pod.utilisation_text);
    if (!c.utilisation) {
      fail_all(fmt::format("netscore: annotation {}=\"{}\" is not a fraction of the link from 0 to "
                           "1 (e.g. 0.8, or a percent)",
                           kMaxUtilisationAnnotation, pod.utilisation_text->substr(0, 64)),
               n, outcome);
      return std::nullopt;
    }
  }
  return c;
}

void Filter::prepare_reasons(const PodAsks& pod, const Ceilings& c, const Lookup& lookup) {
  const LabelRules& rules = config_.label_rules;
  for (std::size_t r = 0; r < rules.rules.size(); ++r) {
    if ((pod.required >> r & 1) != 0)
      reasons_[kSlots + r] = "netscore: " + describe_rule(rules.rules[r]);
  }
  reasons_[kLabelsUnknown] =
      lookup.freshness == Freshness::fresh
          ? std::string("netscore: node labels unknown to netscore (NETSCORE_STALE_POLICY=closed)")
          : fmt::format(
                "netscore: score table {}, node labels unknown (NETSCORE_STALE_POLICY=closed)",
                to_string(lookup.freshness));
  if (c.receive) {
    reasons_[kRateAbove] =
        without_percent(fmt::format("netscore: node receive rate above the pod's {} of {}",
                                    kMaxReceiveRateAnnotation, *pod.rate_text));
  }
  if (c.transmit) {
    reasons_[kTransmitRateAbove] =
        without_percent(fmt::format("netscore: node transmit rate above the pod's {} of {}",
                                    kMaxTransmitRateAnnotation, *pod.transmit_rate_text));
  }
  if (c.utilisation) {
    // The limit as a fraction: the pod's "80%" would be garbled by the scheduler's formatting.
    reasons_[kUtilisationAbove] =
        fmt::format("netscore: node {} link utilisation above the pod's {} of {:g}",
                    utilisation_side(snapshot_direction(lookup.meta)), kMaxUtilisationAnnotation,
                    *c.utilisation);
    reasons_[kUtilisationUnknown] = fmt::format(
        "netscore: node link speed or rate unknown, cannot check {} (NETSCORE_STALE_POLICY=closed)",
        kMaxUtilisationAnnotation);
  }
  if (c.any()) {
    // Named after the first ceiling the pod carries: one reason for every node.
    const std::string_view first = c.receive    ? kMaxReceiveRateAnnotation
                                   : c.transmit ? kMaxTransmitRateAnnotation
                                                : kMaxUtilisationAnnotation;
    reasons_[kCannotCheckCeiling] =
        fmt::format("netscore: score table {}, cannot check {} (NETSCORE_STALE_POLICY=closed)",
                    to_string(lookup.freshness), first);
  }
}

std::string_view Filter::label_verdict(const ExtenderArgs& args, std::size_t i,
                                       std::uint64_t required, bool masks_usable,
                                       const FilterOutcome& outcome) const {
  const LabelRules& rules = config_.label_rules;
  std::optional<std::uint64_t> mask;
  if (!args.node_cache_capable) {
    const ByteSpan r = args.label_ranges[i];
    mask = node_rule_mask(rules, std::span(args.node_labels).subspan(r.begin, r.end - r.begin));
  } else if (masks_usable && outcome.found[i].found &&
             (outcome.found[i].flags & shm::kEntryLabelsKnown) != 0) {
    mask = outcome.found[i].rule_mask;
  }
  if (mask) {
    const int unmet = first_unmet_rule(required, *mask);
    return unmet >= 0 ? reasons_[kSlots + static_cast<std::size_t>(unmet)] : std::string_view{};
  }
  return config_.extender.stale_policy == StalePolicy::fail_closed ? reasons_[kLabelsUnknown]
                                                                   : std::string_view{};
}

template <class LookUp>
void Filter::run_with(const ExtenderArgs& args, const LookUp& look_up, FilterOutcome& outcome) {
  outcome = FilterOutcome{};
  const std::size_t n = args.names.size();
  const PodAsks pod = asks(args);
  // The common case costs no table read: nothing about this pod asks for filtering.
  if (!pod.any()) {
    outcome.passed.resize(n);
    for (std::size_t i = 0; i < n; ++i) outcome.passed[i] = i;
    return;
  }
  reasons_.assign(kSlots + config_.label_rules.rules.size(), {});
  if (pod.removed) {
    return fail_all(
        fmt::format("netscore: annotation {} is no longer supported; use {} (bytes per second)",
                    kRemovedCeilingAnnotation, kMaxReceiveRateAnnotation),
        n, outcome);
  }
  const std::optional<Ceilings> ceilings = parse_ceilings(pod, n, outcome);
  if (!ceilings) return;
  const bool names_mode = args.node_cache_capable;
  if (ceilings->any() || names_mode) {
    look_up(outcome);
    outcome.looked_up = true;
    outcome.freshness = outcome.lookup.freshness;
  }
  const Lookup& lookup = outcome.lookup;
  const bool fresh = lookup.freshness == Freshness::fresh;
  // Masks computed from other rules (the two containers configured differently) mean nothing here.
  const bool masks_usable = fresh && (lookup.meta.flags & shm::kSnapshotClusterSynced) != 0 &&
                            lookup.meta.rules_hash == config_.label_rules.hash;
  if (names_mode && pod.required != 0 && fresh && !masks_usable) warn_once_about(lookup);
  prepare_reasons(pod, *ceilings, lookup);
  const bool closed = config_.extender.stale_policy == StalePolicy::fail_closed;
  const Direction direction = snapshot_direction(lookup.meta);
  for (std::size_t i = 0; i < n; ++i) {
    std::string_view reason;
    if (pod.required != 0) reason = label_verdict(args, i, pod.required, masks_usable, outcome);
    if (reason.empty() && ceilings->any()) {
      if (!fresh) {
        if (closed) reason = reasons_[kCannotCheckCeiling];
      } else if (outcome.found[i].found) {
        reason = above_ceiling(args.names[i], outcome.found[i], *ceilings, direction, closed);
      }
    }
    if (reason.empty()) {
      outcome.passed.push_back(i);
    } else {
      outcome.failed.push_back({i, reason});
    }
  }
}

void Filter::run(const ExtenderArgs& args, const ScoreTableReader* table, std::int64_t now_mono_ns,
                 FilterOutcome& outcome) {
  run_with(
      args,
      [&](FilterOutcome& out) {
        out.found.resize(args.names.size());
        out.lookup = lookup_nodes(table, args.names, args.name_hashes, out.found, now_mono_ns,
                                  max_age_ns(config_));
      },
      outcome);
}

void Filter::run(const ExtenderArgs& args, const Lookup& lookup, std::span<const NodeScore> found,
                 FilterOutcome& outcome) {
  run_with(
      args,
      [&](FilterOutcome& out) {
        out.found.assign(found.begin(), found.end());
        out.lookup = lookup;
      },
      outcome);
}

}  // namespace netscore::extender
