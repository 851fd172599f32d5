#include "common/model/correction.h"

#include <algorithm>
#include <cmath>

#include "common/model/figures.h"
#include "common/model/pricing.h"
#include "common/model/scoring.h"

namespace netscore::model {
namespace {

bool usable(double value) {
  return std::isfinite(value) && value >= 0;
}

std::optional<double> known(bool valid, double value) {
  return valid ? std::optional<double>(value) : std::nullopt;
}

// A node's net change in one direction: what its new pods add minus what its gone pods take out.
struct Change {
  double known = 0;        // bytes/s of the pods whose rate is known, x their parts
  double known_share = 0;  // the parts of those pods
  double plain = 0;        // the parts of the other pods
};

Change receive_change(const NodeLoad& l) {
  return {.known = l.pending_known - l.departed_known,
          .known_share = l.pending_known_share - l.departed_known_share,
          .plain = l.pending_plain - l.departed_plain};
}

Change transmit_change(const NodeLoad& l) {
  const double all =
      l.pending_plain + l.pending_known_share - l.departed_plain - l.departed_known_share;
  const double share = l.pending_transmit_known_share - l.departed_transmit_known_share;
  return {.known = l.pending_transmit_known - l.departed_transmit_known,
          .known_share = share,
          .plain = all - share};
}

// One direction's measurement summed over the cluster.
struct Sums {
  double value = 0, rate = 0;  // over the nodes that answered both: sum_over_time's factor
  double value_with_pods = 0, value_settled = 0;  // nodes with pods and a value; their parts
  double rate_with_pods = 0, rate_settled = 0;    // nodes with pods and a rate; their parts

  void add(std::optional<double> v, std::optional<double> r, const NodeLoad* load) {
    if (v && r) {
      value += *v;
      rate += *r;
    }
    if (load == nullptr) return;
    if (v) {
      value_with_pods += *v;
      value_settled += load->settled;
    }
    if (r) {
      rate_with_pods += *r;
      rate_settled += load->settled;
    }
  }
};

// What one pod of unknown traffic costs in one direction.
struct Prices {
  double rate_per_pod = 0;              // bytes/s: never unknown (the option's default at worst)
  std::optional<double> factor{};       // the raw unit per bytes/s
  std::optional<double> raw_per_pod{};  // the raw unit

  double rate_delta(const Change& c) const { return c.known + c.plain * rate_per_pod; }
  // Without a factor a known rate cannot be converted: those pods cost the average too.
  std::optional<double> raw_delta(const Change& c) const {
    if (!raw_per_pod) return std::nullopt;
    if (factor) return c.known * *factor + c.plain * *raw_per_pod;
    return (c.plain + c.known_share) * *raw_per_pod;
  }
};

Prices prices(const Sums& s, const CorrectionSettings& settings, std::optional<double> learned,
              double default_rate) {
  Prices p;
  switch (settings.function) {
    case QueryFunction::rate:
      p.factor = 1.0;
      break;
    case QueryFunction::increase:
      p.factor = static_cast<double>(settings.window_ms) / 1000.0;
      break;
    case QueryFunction::sum_over_time:
      if (s.rate > 0) p.factor = s.value / s.rate;
      break;
  }
  if (learned) {
    p.rate_per_pod = *learned;
  } else if (s.rate_settled >= kSettledPodsToMeasure) {
    p.rate_per_pod = s.rate_with_pods / s.rate_settled;
  } else {
    p.rate_per_pod = default_rate;
  }
  if (learned && p.factor) {
    p.raw_per_pod = *learned * *p.factor;
  } else if (s.value_settled >= kSettledPodsToMeasure) {
    p.raw_per_pod = s.value_with_pods / s.value_settled;
  } else if (p.factor) {
    p.raw_per_pod = default_rate * *p.factor;
  }
  return p;
}

// An entry's corrected value in its scored unit and which directions it took.
struct Corrected {
  std::optional<double> value{};
  bool receive = false, transmit = false;
  bool unpriced_receive = false, unpriced_transmit = false;  // a raw price was needed, not had
};

Corrected correct(const TableEntry& e, const NodeLoad& load, Direction direction, const Prices& rx,
                  const Prices& tx) {
  Corrected c;
  const bool wants_rx = direction != Direction::transmit;
  const bool wants_tx = direction != Direction::receive;
  if (!e.valid()) {
    c.receive = wants_rx;
    c.transmit = wants_tx;
    return c;
  }
  std::optional<double> in_rx, in_tx;
  if (scored_on_utilisation(e)) {
    if (wants_rx && (e.flags & kEntryRateValid) != 0)
      in_rx = (e.rate + rx.rate_delta(receive_change(load))) / e.speed;
    if (wants_tx && (e.flags & kEntryTransmitRateValid) != 0)
      in_tx = (e.transmit_rate + tx.rate_delta(transmit_change(load))) / e.speed;
  } else {
    // As measured_figures scores the raw basis: the receive value always, transmit when answered.
    if (wants_rx) {
      const auto delta = rx.raw_delta(receive_change(load));
      c.unpriced_receive = !delta;
      if (delta) in_rx = e.raw + *delta;
    }
    if (wants_tx && (e.flags & kEntryTransmitValid) != 0) {
      const auto delta = tx.raw_delta(transmit_change(load));
      c.unpriced_transmit = !delta;
      if (delta) in_tx = e.raw_transmit + *delta;
    }
  }
  c.value = in_direction(direction, in_rx, in_tx);
  c.receive = in_rx.has_value();
  c.transmit = in_tx.has_value();
  return c;
}

std::uint32_t pricing_flags(const NodeLoad& load, bool receive, bool transmit) {
  const std::uint32_t pods = load.placed + load.departed;
  return (receive ? load.priced_receive.flags(pods) : 0U) |
         (transmit ? load.priced_transmit.flags(pods) : 0U);
}

bool changing(const NodeLoad* load) {
  return load != nullptr && (load->placed > 0 || load->departed > 0);
}

}  // namespace

double pending_fraction(std::int64_t age_ms, const LoadWindow& window) {
  if (window.window_ms <= 0) return 0;
  const double done =
      static_cast<double>(age_ms - window.lag_ms) / static_cast<double>(window.window_ms);
  return 1.0 - std::clamp(done, 0.0, 1.0);
}

double held_fraction(std::int64_t placed_ms, std::int64_t left_ms, const LoadWindow& window) {
  const double absorbed_when_left = 1.0 - pending_fraction(left_ms - placed_ms, window);
  return pending_fraction(window.now_ms - left_ms, window) * absorbed_when_left;
}

std::vector<NodeRate> node_rates(const std::vector<NodeSample>& samples) {
  std::vector<NodeRate> out;
  out.reserve(samples.size());
  for (const auto& s : samples) {
    if (!s.rate_valid && !s.transmit_rate_valid) continue;
    out.push_back({.node = s.node,
                   .rate = s.rate_valid ? s.rate : -1,
                   .transmit_rate = s.transmit_rate_valid ? s.transmit_rate : -1});
  }
  return out;
}

CorrectionOutcome apply_correction(std::vector<TableEntry>& entries,
                                   const std::vector<const NodeLoad*>& load_of,
                                   const CorrectionSettings& settings,
                                   const LearnedRates& learned_per_pod,
                                   const ScoringSettings& scoring) {
  CorrectionOutcome out;
  Sums rx_sums, tx_sums;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const TableEntry& e = entries[i];
    if ((e.flags & kEntryHasSeries) == 0) continue;
    const std::uint32_t f = e.flags;
    rx_sums.add(known(usable(e.raw), e.raw),
                known((f & kEntryRateValid) != 0 && usable(e.rate), e.rate), load_of[i]);
    tx_sums.add(
        known((f & kEntryTransmitValid) != 0 && usable(e.raw_transmit), e.raw_transmit),
        known((f & kEntryTransmitRateValid) != 0 && usable(e.transmit_rate), e.transmit_rate),
        load_of[i]);
  }
  const Prices rx = prices(rx_sums, settings, learned_per_pod.receive, settings.default_rate);
  const Prices tx =
      prices(tx_sums, settings, learned_per_pod.transmit, settings.default_transmit_rate);

  std::vector<Corrected> corrected(entries.size());
  bool unpriced_rx = false, unpriced_tx = false;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!changing(load_of[i])) continue;
    corrected[i] = correct(entries[i], *load_of[i], scoring.direction, rx, tx);
    unpriced_rx = unpriced_rx || corrected[i].unpriced_receive;
    unpriced_tx = unpriced_tx || corrected[i].unpriced_transmit;
  }
  if (unpriced_rx || unpriced_tx) {
    out.uncorrected_reason =
        std::string("no traffic per pod measured yet and no rate to convert ") +
        (unpriced_rx && unpriced_tx ? "the default receive and transmit rates"
         : unpriced_rx              ? "the default receive rate"
                                    : "the default transmit rate");
    return out;
  }
  out.corrected = true;
  out.pod_rate = in_direction(scoring.direction, rx.rate_per_pod, tx.rate_per_pod).value_or(0);
  const auto raw_price = in_direction(scoring.direction, rx.raw_per_pod, tx.raw_per_pod);
  out.pod_price = plugin_score(raw_price.value_or(0)).value_or(0);
  if (scoring.basis == ScoreBasis::utilisation && out.pod_rate > 0)
    out.pod_price = std::max<std::int64_t>(out.pod_price, 1);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const NodeLoad* load = load_of[i];
    if (!changing(load)) continue;
    TableEntry& e = entries[i];
    const Corrected& c = corrected[i];
    e.placed_pods = load->placed;
    e.flags |= pricing_flags(*load, c.receive, c.transmit);
    out.placed += load->placed + load->departed;
    if (!c.value) continue;
    e.expected = *c.value - e.scored;
    const double value = std::max(0.0, *c.value);
    const auto score = scored_on_utilisation(e) ? utilisation_score(value) : plugin_score(value);
    e.corrected_raw_score = score.value_or(e.raw_score);
  }
  return out;
}

}  // namespace netscore::model
