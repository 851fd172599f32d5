#include "extender/scheduler/filter.h"

#include <algorithm>
#include <array>
#include <charconv>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "common/quantity.h"

namespace netscore::extender {
namespace {

// The scheduler passes filter messages through fmt.Errorf on some paths; a '%' would garble them.
std::string without_percent(std::string s) {
  std::replace(s.begin(), s.end(), '%', '?');
  return s;
}

// reasons_ holds these, then one per label rule (kSlots + rule index).
enum ReasonSlot : std::size_t { kLabelsUnknown, kRateAbove, kCannotCheckRate, kPodError, kSlots };

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
  const auto& [required, rate_text, removed] = pod;
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
  if (rate_text) {
    ceiling = parse_quantity(*rate_text);
    if (!ceiling) {
      return fail_all(fmt::format(
          "netscore: annotation {}=\"{}\" is not bytes per second (e.g. 2000000 or 10Mi)",
          kMaxReceiveRateAnnotation, rate_text->substr(0, 64)));
    }
  }

  const bool names_mode = args.node_cache_capable;
  const bool closed = config_.extender.stale_policy == StalePolicy::fail_closed;
  Lookup lookup;
  if (ceiling || names_mode) {
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
    reasons_[kCannotCheckRate] =
        fmt::format("netscore: score table {}, cannot check {} (NETSCORE_STALE_POLICY=closed)",
                    to_string(lookup.freshness), kMaxReceiveRateAnnotation);
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
    if (reason.empty() && ceiling) {
      const NodeScore& s = outcome.found[i];
      if (!fresh) {
        if (closed) reason = reasons_[kCannotCheckRate];
      } else if (s.found && (s.flags & shm::kEntryRateValid) != 0 && s.rate > *ceiling) {
        reason = reasons_[kRateAbove];
        spdlog::debug("filter node={} rate={:.0f}B/s above ceiling={:.0f}B/s", args.names[i],
                      s.rate, *ceiling);
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
