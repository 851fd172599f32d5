#include "extender/scheduler/filter.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <tuple>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

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
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() ||
      !std::isfinite(value) || value < 0)
    return std::nullopt;
  if (percent) value /= 100;
  if (value > 1) return std::nullopt;
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

struct Ceilings {
  std::optional<double> receive;      // bytes/s
  std::optional<double> transmit;     // bytes/s
  std::optional<double> utilisation;  // fraction of the link
};

// Why a node the fresh table holds fails one of the pod's ceilings (`reasons` by ReasonSlot);
// empty when it passes. A node without a figure passes the rate ceilings (as it always has); a
// node without a utilisation cannot be checked, which closed fails.
std::string_view above_ceiling(std::string_view name, const NodeScore& s, const Ceilings& c,
                               Direction direction, bool closed,
                               const std::vector<std::string>& reasons) {
  if (c.receive && (s.flags & shm::kEntryRateValid) != 0 && s.rate > *c.receive) {
    spdlog::debug("filter node={} rate={:.0f}B/s above ceiling={:.0f}B/s", name, s.rate,
                  *c.receive);
    return reasons[kRateAbove];
  }
  if (c.transmit && (s.flags & shm::kEntryTransmitRateValid) != 0 &&
      s.transmit_rate > *c.transmit) {
    spdlog::debug("filter node={} transmit_rate={:.0f}B/s above ceiling={:.0f}B/s", name,
                  s.transmit_rate, *c.transmit);
    return reasons[kTransmitRateAbove];
  }
  if (c.utilisation) {
    const auto utilisation = model::utilisation_in(s, direction);
    if (!utilisation) return closed ? reasons[kUtilisationUnknown] : std::string_view{};
    if (*utilisation > *c.utilisation) {
      spdlog::debug("filter node={} utilisation={:g} above ceiling={:g}", name, *utilisation,
                    *c.utilisation);
      return reasons[kUtilisationAbove];
    }
  }
  return {};
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

void Filter::run(const ExtenderArgs& args, const ScoreTableReader* table, std::int64_t now_mono_ns,
                 FilterOutcome& outcome) {
  outcome = FilterOutcome{};
  const std::size_t n = args.names.size();
  const PodAsks pod = asks(args);
  // The common case costs no table read: nothing about this pod asks for filtering.
  if (!pod.any()) {
    outcome.passed.resize(n);
    for (std::size_t i = 0; i < n; ++i) outcome.passed[i] = i;
    return;
  }
  const auto& [required, rate_text, transmit_rate_text, utilisation_text, removed] = pod;
  const LabelRules& rules = config_.label_rules;
  reasons_.assign(kSlots + rules.rules.size(), {});
  const auto fail_all = [&](std::string reason) {
    reasons_[kPodError] = without_percent(std::move(reason));
    for (std::size_t i = 0; i < n; ++i) outcome.failed.push_back({i, reasons_[kPodError]});
  };
  if (removed) {
    return fail_all(
        fmt::format("netscore: annotation {} is no longer supported; use {} (bytes per second)",
                    kRemovedCeilingAnnotation, kMaxReceiveRateAnnotation));
  }
  std::optional<double> ceiling;
  std::optional<double> transmit_ceiling;
  std::optional<double> utilisation_limit;
  for (const auto& [text, annotation, limit] :
       {std::tuple(rate_text, kMaxReceiveRateAnnotation, &ceiling),
        std::tuple(transmit_rate_text, kMaxTransmitRateAnnotation, &transmit_ceiling)}) {
    if (!text) continue;
    *limit = parse_quantity(*text);
    if (!*limit) {
      return fail_all(fmt::format(
          "netscore: annotation {}=\"{}\" is not bytes per second (e.g. 2000000 or 10Mi)",
          annotation, text->substr(0, 64)));
    }
  }
  if (utilisation_text) {
    utilisation_limit = parse_utilisation(*utilisation_text);
    if (!utilisation_limit) {
      return fail_all(fmt::format(
          "netscore: annotation {}=\"{}\" is not a fraction of the link from 0 to 1 (e.g. 0.8, "
          "or a percent)",
          kMaxUtilisationAnnotation, utilisation_text->substr(0, 64)));
    }
  }
  const bool any_ceiling = ceiling || transmit_ceiling || utilisation_limit;

  const bool names_mode = args.node_cache_capable;
  const bool closed = config_.extender.stale_policy == StalePolicy::fail_closed;
  Lookup lookup;
  if (any_ceiling || names_mode) {
    outcome.found.resize(n);
    lookup = lookup_nodes(table, args.names, args.name_hashes, outcome.found, now_mono_ns,
                          max_age_ns(config_));
    outcome.looked_up = true;
    outcome.freshness = lookup.freshness;
    outcome.lookup = lookup;
  }
  const bool fresh = lookup.freshness == Freshness::fresh;
  // Masks computed from other rules (the two containers configured differently) mean nothing here.
  const bool masks_usable = fresh && (lookup.meta.flags & shm::kSnapshotClusterSynced) != 0 &&
                            lookup.meta.rules_hash == rules.hash;
  if (names_mode && required != 0 && fresh && !masks_usable) warn_once_about(lookup);
  for (std::size_t r = 0; r < rules.rules.size(); ++r) {
    if ((required >> r & 1) != 0)
      reasons_[kSlots + r] = "netscore: " + describe_rule(rules.rules[r]);
  }
  reasons_[kLabelsUnknown] =
      fresh
          ? std::string("netscore: node labels unknown to netscore (NETSCORE_STALE_POLICY=closed)")
          : fmt::format(
                "netscore: score table {}, node labels unknown (NETSCORE_STALE_POLICY=closed)",
                to_string(lookup.freshness));
  if (ceiling) {
    reasons_[kRateAbove] =
        without_percent(fmt::format("netscore: node receive rate above the pod's {} of {}",
                                    kMaxReceiveRateAnnotation, *rate_text));
  }
  if (transmit_ceiling) {
    reasons_[kTransmitRateAbove] =
        without_percent(fmt::format("netscore: node transmit rate above the pod's {} of {}",
                                    kMaxTransmitRateAnnotation, *transmit_rate_text));
  }
  const Direction direction = snapshot_direction(lookup.meta);
  if (utilisation_limit) {
    // The limit as a fraction: the pod's "80%" would be garbled by the scheduler's formatting.
    reasons_[kUtilisationAbove] =
        fmt::format("netscore: node {} link utilisation above the pod's {} of {:g}",
                    utilisation_side(direction), kMaxUtilisationAnnotation, *utilisation_limit);
    reasons_[kUtilisationUnknown] = fmt::format(
        "netscore: node link speed or rate unknown, cannot check {} (NETSCORE_STALE_POLICY=closed)",
        kMaxUtilisationAnnotation);
  }
  if (any_ceiling) {
    // Named after the first ceiling the pod carries: one reason for every node.
    const std::string_view first = ceiling            ? kMaxReceiveRateAnnotation
                                   : transmit_ceiling ? kMaxTransmitRateAnnotation
                                                      : kMaxUtilisationAnnotation;
    reasons_[kCannotCheckCeiling] =
        fmt::format("netscore: score table {}, cannot check {} (NETSCORE_STALE_POLICY=closed)",
                    to_string(lookup.freshness), first);
  }

  for (std::size_t i = 0; i < n; ++i) {
    std::string_view reason;
    if (required != 0) {
      std::optional<std::uint64_t> mask;
      if (!names_mode) {
        const ByteSpan r = args.label_ranges[i];
        mask = node_rule_mask(rules, std::span(args.node_labels).subspan(r.begin, r.end - r.begin));
      } else if (masks_usable && outcome.found[i].found &&
                 (outcome.found[i].flags & shm::kEntryLabelsKnown) != 0) {
        mask = outcome.found[i].rule_mask;
      }
      if (mask) {
        const int unmet = first_unmet_rule(required, *mask);
        if (unmet >= 0) reason = reasons_[kSlots + static_cast<std::size_t>(unmet)];
      } else if (closed) {
        reason = reasons_[kLabelsUnknown];
      }
    }
    if (reason.empty() && any_ceiling) {
      const NodeScore& s = outcome.found[i];
      if (!fresh) {
        if (closed) reason = reasons_[kCannotCheckCeiling];
      } else if (s.found) {
        reason = above_ceiling(args.names[i], s, {ceiling, transmit_ceiling, utilisation_limit},
                               direction, closed, reasons_);
      }
    }
    if (reason.empty()) {
      outcome.passed.push_back(i);
    } else {
      outcome.failed.push_back({i, reason});
    }
  }
}

}  // namespace netscore::extender
