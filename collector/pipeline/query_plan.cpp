#include "collector/pipeline/query_plan.h"

#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "collector/prometheus/promql.h"
#include "collector/prometheus/side_queries.h"

namespace netscore::collector {
namespace {

// A device matcher naming one device gives a node one series per metric and scrape target;
// a regex or a negation usually several, which must be summed.
bool one_device(const QueryConfig& config) {
  return !config.interface_regex && !config.interface.starts_with('!');
}

}  // namespace

QueryPlan::QueryPlan(const QueryConfig& config, std::chrono::milliseconds recheck,
                     MonoClockMs clock)
    : config_(config), recheck_ms_(recheck.count()), clock_(std::move(clock)) {
  shape_.per_series = config_.mode != QueryMode::uname && one_device(config_);
  rebuild();
}

bool QueryPlan::resolves_layout() const {
  return config_.mode == QueryMode::label && config_.node_labels.size() > 1;
}

// Recording rules hold rates only, and carry their targets' labels, not node_uname_info's.
bool QueryPlan::may_use_rules() const {
  return config_.mode == QueryMode::label && config_.function == QueryFunction::rate;
}

void QueryPlan::rebuild() {
  batch_ = build_batch_query(config_, shape_);
}

QueryPlan::Due QueryPlan::due() const {
  const std::int64_t now_ms = clock_();
  return {
      .layout = resolves_layout() && now_ms >= next_layout_ms_,
      .rules = may_use_rules() && now_ms >= next_rules_ms_,
      .speeds = asks_link_parts(config_) && (speeds_eval_ms_ == 0 || now_ms >= next_speeds_ms_)};
}

void QueryPlan::prepare(const Due& due, PrometheusApi& api, std::int64_t eval_time_ms) {
  if (due.layout) check_layout(api, eval_time_ms);
  if (due.rules) check_rules(api, eval_time_ms);
}

void QueryPlan::check_layout(PrometheusApi& api, std::int64_t eval_time_ms) {
  ++counts_.layout_checks;
  const std::int64_t now_ms = clock_();
  const auto answer =
      api.query({.promql = build_layout_query(config_), .node_label = std::string(kLayoutLabel)},
                eval_time_ms);
  if (!answer.ok()) {
    ++counts_.failed;
    next_layout_ms_ = now_ms;  // the chain (or the label found before) stays meanwhile
    return;
  }
  layout_known_ = true;
  next_layout_ms_ = now_ms + recheck_ms_;
  QueryShape shape = shape_;
  shape.node_label = single_node_label(*answer.value).value_or("");
  // A new layout may bring several series per node again: start from what the interface says.
  shape.per_series = !shape.receive_rule.empty() || one_device(config_);
  if (shape != shape_) {
    shape_ = std::move(shape);
    rebuild();
  }
}

void QueryPlan::check_rules(PrometheusApi& api, std::int64_t eval_time_ms) {
  ++counts_.rule_checks;
  next_rules_ms_ = clock_() + recheck_ms_;
  QueryShape shape = shape_;
  shape.receive_rule.clear();
  shape.transmit_rule.clear();
  const auto listed = api.recording_rules();
  // Prometheus-compatible servers without a rules API (404) simply have none to offer.
  if (!listed.ok() && listed.http_status != 404) ++counts_.failed;
  const RateRules rules = listed.ok() ? find_rate_rules(*listed.value, config_) : RateRules{};
  const bool complete = rules.receive && (!asks_link_parts(config_) || rules.transmit);
  bool covered = complete;
  if (complete) {
    if (const std::string coverage = build_rule_coverage_query(config_, rules); !coverage.empty()) {
      const auto answer = api.query({.promql = coverage}, eval_time_ms);
      covered = answer.ok() && answer.value->samples.empty() && answer.value->series == 0;
    }
  }
  if (covered) {
    shape.receive_rule = rules.receive->name;
    if (asks_link_parts(config_)) shape.transmit_rule = rules.transmit->name;
  }
  const bool per_series = !shape.receive_rule.empty() || one_device(config_);
  if (shape.receive_rule != shape_.receive_rule) shape.per_series = per_series;
  if (shape != shape_) {
    shape_ = std::move(shape);
    rebuild();
  }
}

bool QueryPlan::reconsider(const ParsedVector& answer, PrometheusApi& api,
                           std::int64_t eval_time_ms) {
  if (!answer.ok()) return false;
  const QueryShape before = shape_;
  if (shape_.per_series && answer.duplicate_node + answer.duplicate_part > 0) {
    shape_.per_series = false;
    rebuild();
  }
  if (!shape_.receive_rule.empty() && answer.samples.empty()) check_rules(api, eval_time_ms);
  if (resolves_layout() && !shape_.node_label.empty() && answer.missing_label > 0)
    check_layout(api, eval_time_ms);
  return shape_ != before;
}

bool QueryPlan::ask_speeds(const std::vector<model::NodeSample>& samples, PrometheusApi& api,
                           std::int64_t eval_time_ms) {
  ++counts_.speed_queries;
  const std::int64_t now_ms = clock_();
  // One series per node read as it is; summed by node when there is no such shape, or when a
  // node turns out to have several series.
  const auto series = build_speed_series_query(config_, shape_);
  bool plain = series.has_value();
  auto answer = api.query(plain ? *series : build_speed_query(config_, shape_), eval_time_ms);
  if (plain && answer.ok() && answer.value->duplicate_node > 0) {
    plain = false;
    answer = api.query(build_speed_query(config_, shape_), eval_time_ms);
  }
  if (!answer.ok()) {
    ++counts_.failed;
    next_speeds_ms_ = now_ms;
    return false;
  }
  speeds_.clear();
  for (const auto& s : answer.value->samples) {
    const bool usable = std::isfinite(s.value) && s.value > 0;
    speeds_[s.node] =
        plain ? Speed{usable ? s.value : 0, usable ? 0U : 1U} : Speed{s.speed, s.unusable_speeds};
  }
  // Nodes without a speed series are known too: no speed, until the next recheck.
  for (const auto& s : samples) speeds_.try_emplace(s.node);
  speeds_eval_ms_ = eval_time_ms;
  next_speeds_ms_ = now_ms + recheck_ms_;
  return true;
}

std::string QueryPlan::attach_speeds(const Due& due, std::vector<model::NodeSample>& samples,
                                     PrometheusApi& api, std::int64_t eval_time_ms) {
  if (!asks_link_parts(config_)) return {};
  bool ask = due.speeds;
  for (std::size_t i = 0; i < samples.size() && !ask; ++i) ask = !speeds_.contains(samples[i].node);
  if (ask && !ask_speeds(samples, api, eval_time_ms) && speeds_eval_ms_ == 0)
    return "the link speeds could not be asked";
  for (auto& s : samples) {
    if (const auto it = speeds_.find(s.node); it != speeds_.end()) {
      s.speed = it->second.speed;
      s.unusable_speeds = it->second.unusable;
    }
  }
  return {};
}

std::string QueryPlan::describe() const {
  std::string text;
  if (config_.mode == QueryMode::label) {
    const std::string label = batch_.node_label;
    if (!resolves_layout()) {
      text = "node label " + label;
    } else if (!shape_.node_label.empty()) {
      text = "node label " + label + " (the one NETSCORE_NODE_LABEL candidate the series carry)";
    } else {
      text = fmt::format("node label: the first present of {} per series{}",
                         fmt::join(config_.node_labels, ","),
                         layout_known_ ? " (the series carry several)" : " (layout not checked)");
    }
  } else {
    text = "node label " + batch_.node_label;
  }
  text += shape_.per_series ? "; read per series" : "; summed by node";
  if (!shape_.receive_rule.empty()) {
    text += "; rates from the recording rules " + shape_.receive_rule;
    if (!shape_.transmit_rule.empty()) text += " and " + shape_.transmit_rule;
  } else {
    text += "; rates from the counters";
  }
  if (asks_link_parts(config_)) text += "; link speeds asked apart";
  return text;
}

PlanReport QueryPlan::report(std::uint64_t asked_before) const {
  return {.path = describe(),
          .asked_apart = static_cast<std::uint32_t>(counts_.total() - asked_before),
          .asked_apart_total = counts_.total(),
          .failed_total = counts_.failed,
          .speeds_eval_time_ms = speeds_eval_ms_};
}

}  // namespace netscore::collector
