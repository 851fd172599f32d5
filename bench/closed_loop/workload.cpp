#include "bench/closed_loop/workload.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <unordered_set>

namespace netscore::sim {
namespace {

// Hand-written distributions over mt19937_64, whose output the standard fixes: the same trace
// from a seed with any standard library.
class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}
  // In (0, 1): logarithms of it and of 1 - it are finite.
  double open01() { return (static_cast<double>(engine_() >> 11) + 0.5) * 0x1p-53; }
  double exponential(double mean) { return -mean * std::log(open01()); }
  double normal() {
    return std::sqrt(-2 * std::log(open01())) * std::cos(2 * std::numbers::pi * open01());
  }
  double lognormal(double median, double sigma) { return median * std::exp(sigma * normal()); }
  double uniform(double lo, double hi) { return lo + (hi - lo) * open01(); }
  // Uniform over [lo, hi].
  std::uint64_t integer(std::uint64_t lo, std::uint64_t hi) {
    const auto span = hi - lo + 1;
    return lo +
           std::min(span - 1, static_cast<std::uint64_t>(open01() * static_cast<double>(span)));
  }

 private:
  std::mt19937_64 engine_;
};

// Independent streams per purpose, so that e.g. a new pod-rate jitter leaves arrivals as they were.
std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t z = seed + stream * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
// lifecycle_stream + i is deployment i's, and direction_stream + i its heavy direction's: apart
// from its lifecycle, so that traces without transmit-heavy deployments stay as they were.
enum Stream : std::uint64_t {
  nodes_stream = 1,
  arrivals_stream,
  names_stream,
  lifecycle_stream,
  transmit_nodes_stream = std::uint64_t{1} << 40,
  direction_stream = std::uint64_t{1} << 41,
};

// Cumulative weights of the replica counts min..max, P(min + i) ~ 1 / (i + 1)^exponent.
std::vector<double> replica_cdf(const WorkloadParams& p) {
  std::vector<double> cdf;
  double total = 0;
  for (unsigned i = 0; i <= p.replicas_max - p.replicas_min; ++i) {
    total += std::pow(i + 1.0, -p.replicas_zipf_exponent);
    cdf.push_back(total);
  }
  for (auto& c : cdf) c /= total;
  return cdf;
}

// Expected pod-seconds of one deployment, exactly, so that Little's law gives the arrival rate
// that keeps pods_per_node alive on average. Without deaths, the live count N only grows (by
// scale-ups); x[n] = E[integral of e^(-a/T) N(a) da | N(0) = n] is that expectation given n
// replicas (the survival of an exponential lifetime T is e^(-a/T)), and first-jump analysis gives
// x[n] (1/T + s) = n + s * mean(x[n + k], k = 1..max(1, n/2)). Beyond a cap where reaching is
// negligible, x is its linear asymptote. A rolling update adds k (mean (N+1)/2) old pods for
// min(delay, remaining life), whose mean is T (1 - e^(-delay/T)).
double expected_pod_seconds(const WorkloadParams& p, const std::vector<double>& cdf) {
  const double T = p.deployment_lifetime_mean_s;
  const double s = p.scale_up_rate;
  constexpr std::size_t cap = 1 << 16;
  const double slope = 1 / (1 / T - s / 4);
  const double offset = T * s * 0.375;  // the asymptote's intercept, E[k] ~ n/4 + 3/8
  // Sum of the asymptote slope * (j + offset) over j = cap+1 .. last.
  auto beyond = [&](double last) {
    const double count = last - cap;
    return slope * ((cap + 1 + last) * count / 2 + offset * count);
  };
  std::vector<double> x(cap + 1), suffix(cap + 2);  // suffix[n] = x[n] + ... + x[cap]
  for (std::size_t n = cap; n >= 1; --n) {
    const std::size_t m = std::max<std::size_t>(1, n / 2);
    const double sum = n + m <= cap ? suffix[n + 1] - suffix[n + m + 1]
                                    : suffix[n + 1] + beyond(static_cast<double>(n + m));
    x[n] = (static_cast<double>(n) + s * sum / static_cast<double>(m)) / (1 / T + s);
    suffix[n] = suffix[n + 1] + x[n];
  }
  double mean = 0;
  for (std::size_t i = 0; i < cdf.size(); ++i) {
    mean += (cdf[i] - (i == 0 ? 0 : cdf[i - 1])) * x[p.replicas_min + i];
  }
  return mean + p.rolling_update_rate * T * (1 - std::exp(-p.rollout_delay_s / T)) * (mean + T) / 2;
}

struct RawPod {
  std::uint32_t deployment;
  std::uint32_t replicaset;  // ordinal within the deployment
  double rate;               // in the heavy direction
  double created;
  double deleted;
};
struct RawDeployment {
  double level;
  bool transmit_heavy;
};
struct RawBurst {
  double t;
  std::vector<std::uint32_t> pods;
};

// One deployment's life from its arrival until it ends or the trace does; returns its level and
// direction. Each draws from its own stream: the same deployment whatever the others do.
RawDeployment live_deployment(const WorkloadParams& p, const std::vector<double>& cdf,
                              std::uint32_t index, double arrival, std::vector<RawPod>& pods,
                              std::vector<RawBurst>& bursts) {
  Random direction(stream_seed(p.seed, direction_stream + std::uint64_t{index}));
  const bool transmit_heavy =
      p.transmit_heavy_fraction > 0 && direction.open01() < p.transmit_heavy_fraction;
  Random random(stream_seed(p.seed, lifecycle_stream + std::uint64_t{index}));
  const double level = random.lognormal(p.deployment_rate_median, p.deployment_rate_sigma);
  const double death = arrival + random.exponential(p.deployment_lifetime_mean_s);
  const double end = std::min(death, p.duration_s);
  std::uint32_t replicaset = 0;
  std::vector<std::uint32_t> live;
  auto create = [&](double t, std::uint64_t k) {
    RawBurst burst{t, {}};
    for (std::uint64_t i = 0; i < k; ++i) {
      const auto id = static_cast<std::uint32_t>(pods.size());
      pods.push_back(
          {index, replicaset, level * std::exp(p.pod_jitter_sigma * random.normal()), t, death});
      burst.pods.push_back(id);
      live.push_back(id);
    }
    bursts.push_back(std::move(burst));
  };
  const auto first = std::upper_bound(cdf.begin(), cdf.end(), random.open01()) - cdf.begin();
  create(arrival, p.replicas_min + std::min<std::uint64_t>(first, cdf.size() - 1));
  const double changes = p.scale_up_rate + p.rolling_update_rate;
  if (changes <= 0) return {level, transmit_heavy};
  // Strictly later than the previous event, so that no pod is removed when it is created.
  for (double t = arrival;;) {
    t = std::max(t + random.exponential(1 / changes), std::nextafter(t, death));
    if (t >= end) return {level, transmit_heavy};
    if (random.open01() * changes < p.scale_up_rate) {
      create(t, random.integer(1, std::max<std::size_t>(1, live.size() / 2)));
      continue;
    }
    const auto k = random.integer(1, live.size());
    for (std::size_t i = 0; i < k; ++i) {
      std::swap(live[i], live[random.integer(i, live.size() - 1)]);
      pods[live[i]].deleted = std::min(t + p.rollout_delay_s, death);
    }
    live.erase(live.begin(), live.begin() + static_cast<std::ptrdiff_t>(k));
    ++replicaset;
    create(t, k);
  }
}

// Names as Kubernetes makes them: rand.SafeEncodeString's alphabet has no vowels nor look-alikes.
std::string encoded(Random& random, std::size_t length) {
  static constexpr std::string_view alphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  for (std::size_t i = 0; i < length; ++i) out += alphabet[random.integer(0, alphabet.size() - 1)];
  return out;
}

std::string padded(std::size_t value, std::size_t width) {
  std::string digits = std::to_string(value);
  return std::string(width > digits.size() ? width - digits.size() : 0, '0') + digits;
}

// Renumbers the pods alive at 0 or created later, in creation order, and names them.
void compact(const WorkloadParams& p, const std::vector<RawPod>& raw,
             const std::vector<RawBurst>& bursts, const std::vector<RawDeployment>& levels,
             Trace& trace) {
  constexpr double never = std::numeric_limits<double>::infinity();
  constexpr std::uint32_t none = 0xffffffff;
  std::vector<std::uint32_t> new_id(raw.size(), none);
  std::vector<std::uint32_t> new_deployment(levels.size(), none);
  std::vector<std::uint32_t> replicasets(levels.size(), 0);
  std::vector<std::uint32_t> order;  // of the pods kept
  for (std::uint32_t id = 0; id < raw.size(); ++id) {
    const auto& pod = raw[id];
    if (pod.deleted <= 0) continue;
    order.push_back(id);
    replicasets[pod.deployment] = std::max(replicasets[pod.deployment], pod.replicaset + 1);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](auto a, auto b) { return raw[a].created < raw[b].created; });
  Random random(stream_seed(p.seed, names_stream));
  std::vector<std::vector<std::string>> hashes(levels.size());
  std::unordered_set<std::string> names;
  for (const auto id : order) {
    const auto& pod = raw[id];
    auto& deployment = new_deployment[pod.deployment];
    if (deployment == none) {
      deployment = static_cast<std::uint32_t>(trace.deployments.size());
      trace.deployments.push_back({"app-" + padded(deployment, 4), levels[pod.deployment].level,
                                   levels[pod.deployment].transmit_heavy});
      auto& own = hashes[pod.deployment];
      while (own.size() < replicasets[pod.deployment]) {
        auto hash = encoded(random, 10);
        if (std::find(own.begin(), own.end(), hash) == own.end()) own.push_back(std::move(hash));
      }
    }
    PodSpec spec;
    spec.id = new_id[id] = static_cast<std::uint32_t>(trace.pods.size());
    spec.deployment = deployment;
    spec.template_hash = hashes[pod.deployment][pod.replicaset];
    spec.replicaset = trace.deployments[deployment].name + "-" + spec.template_hash;
    do {
      spec.name = spec.replicaset + "-" + encoded(random, 5);
    } while (!names.insert(spec.name).second);
    const double minor = pod.rate * p.minor_direction_fraction;
    const bool transmit_heavy = levels[pod.deployment].transmit_heavy;
    spec.rate = transmit_heavy ? minor : pod.rate;
    spec.transmit_rate = transmit_heavy ? pod.rate : minor;
    spec.created_s = pod.created;
    spec.deleted_s = pod.deleted < p.duration_s ? pod.deleted : never;
    if (spec.created_s < 0) {
      spec.burst = kInitialBurst;
      trace.initial_pods.push_back(spec.id);
    }
    trace.pods.push_back(std::move(spec));
  }
  // Events: creates from the bursts at t >= 0, removes of the pods deleted before the end.
  struct Keyed {
    TraceEvent event;
    std::size_t seq;
  };
  std::vector<Keyed> events;
  for (const auto& burst : bursts) {
    if (burst.t < 0) continue;
    TraceEvent event{burst.t, TraceEvent::Kind::create, {}};
    for (const auto id : burst.pods) event.pods.push_back(new_id[id]);
    events.push_back({std::move(event), events.size()});
  }
  for (const auto& pod : trace.pods) {
    if (pod.deleted_s < never) {
      events.push_back({{pod.deleted_s, TraceEvent::Kind::remove, {pod.id}}, events.size()});
    }
  }
  std::sort(events.begin(), events.end(), [](const Keyed& a, const Keyed& b) {
    if (a.event.t != b.event.t) return a.event.t < b.event.t;
    if (a.event.kind != b.event.kind) return a.event.kind == TraceEvent::Kind::remove;
    return a.seq < b.seq;
  });
  for (auto& keyed : events) {
    if (keyed.event.kind == TraceEvent::Kind::create) {
      for (const auto id : keyed.event.pods) {
        trace.pods[id].burst = static_cast<std::uint32_t>(trace.events.size());
      }
    }
    trace.events.push_back(std::move(keyed.event));
  }
}

}  // namespace

std::string validate(const WorkloadParams& p) {
  auto finite = [](double v) { return std::isfinite(v); };
  if (p.nodes < 1) return "nodes must be at least 1";
  if (!finite(p.duration_s) || p.duration_s <= 0) return "duration_s must be positive";
  if (!finite(p.background_median) || p.background_median <= 0) {
    return "background_median must be positive";
  }
  if (!finite(p.background_sigma) || p.background_sigma < 0) {
    return "background_sigma must not be negative";
  }
  if (!finite(p.deployment_rate_median) || p.deployment_rate_median <= 0) {
    return "deployment_rate_median must be positive";
  }
  if (!finite(p.deployment_rate_sigma) || p.deployment_rate_sigma < 1) {
    return "deployment_rate_sigma must be at least 1 (heavy-tailed deployment rates)";
  }
  if (!finite(p.pod_jitter_sigma) || p.pod_jitter_sigma < 0) {
    return "pod_jitter_sigma must not be negative";
  }
  if (p.replicas_min < 1) return "replicas_min must be at least 1";
  if (p.replicas_max < p.replicas_min || p.replicas_max > 10000) {
    return "replicas_max must be in [replicas_min, 10000]";
  }
  if (!finite(p.replicas_zipf_exponent) || p.replicas_zipf_exponent < 0) {
    return "replicas_zipf_exponent must not be negative";
  }
  if (!finite(p.pods_per_node) || p.pods_per_node <= 0) return "pods_per_node must be positive";
  if (!finite(p.deployment_lifetime_mean_s) || p.deployment_lifetime_mean_s <= 0) {
    return "deployment_lifetime_mean_s must be positive";
  }
  if (!finite(p.rolling_update_rate) || p.rolling_update_rate < 0) {
    return "rolling_update_rate must not be negative";
  }
  if (!finite(p.rollout_delay_s) || p.rollout_delay_s < 0) {
    return "rollout_delay_s must not be negative";
  }
  // Scale-ups grow a deployment by a quarter of itself on average: past this the variance of
  // its size is infinite and the pod count never settles.
  if (!finite(p.scale_up_rate) || p.scale_up_rate < 0 ||
      p.scale_up_rate * p.deployment_lifetime_mean_s >= 2) {
    return "scale_up_rate must be in [0, 2 / deployment_lifetime_mean_s)";
  }
  if (!finite(p.counter_days_min) || p.counter_days_min < 0) {
    return "counter_days_min must not be negative";
  }
  if (!finite(p.counter_days_max) || p.counter_days_max < p.counter_days_min) {
    return "counter_days_max must be at least counter_days_min";
  }
  if (!finite(p.warmup_s) || p.warmup_s < 0) return "warmup_s must not be negative";
  if (!finite(p.link_speed) || p.link_speed < 0) return "link_speed must not be negative";
  if (!finite(p.slow_fraction) || p.slow_fraction < 0 || p.slow_fraction > 1) {
    return "slow_fraction must be in [0, 1]";
  }
  if (!finite(p.slow_speed_factor) || p.slow_speed_factor <= 0 || p.slow_speed_factor > 1) {
    return "slow_speed_factor must be in (0, 1]";
  }
  if (!finite(p.transmit_heavy_fraction) || p.transmit_heavy_fraction < 0 ||
      p.transmit_heavy_fraction > 1) {
    return "transmit_heavy_fraction must be in [0, 1]";
  }
  if (!finite(p.minor_direction_fraction) || p.minor_direction_fraction < 0) {
    return "minor_direction_fraction must not be negative";
  }
  return {};
}

Trace generate_trace(const WorkloadParams& p) {
  Trace trace;
  trace.params = p;
  Random node_random(stream_seed(p.seed, nodes_stream));
  Random transmit_random(stream_seed(p.seed, transmit_nodes_stream));
  const std::size_t width = std::max<std::size_t>(2, std::to_string(p.nodes - 1).size());
  // Node i is slow when the running count of slow nodes steps up at i: evenly interleaved.
  const auto slow = static_cast<std::uint64_t>(std::llround(p.slow_fraction * p.nodes));
  for (unsigned n = 0; n < p.nodes; ++n) {
    const bool is_slow = (n + 1) * slow / p.nodes > n * slow / p.nodes;
    const double speed = p.link_speed * (is_slow ? p.slow_speed_factor : 1.0);
    const double scale = p.link_speed > 0 ? speed / p.link_speed : 1.0;
    trace.speed.push_back(speed);
    const double background =
        node_random.lognormal(p.background_median, p.background_sigma) * scale;
    trace.background.push_back(background);
    trace.counter_start.push_back(node_random.uniform(p.counter_days_min, p.counter_days_max) *
                                  86400 * background);
    const double transmit =
        transmit_random.lognormal(p.background_median, p.background_sigma) * scale;
    trace.background_transmit.push_back(transmit);
    trace.counter_start_transmit.push_back(
        transmit_random.uniform(p.counter_days_min, p.counter_days_max) * 86400 * transmit);
    trace.node_names.push_back("node-" + padded(n, width));
  }
  const auto cdf = replica_cdf(p);
  trace.deployment_arrival_rate = p.pods_per_node * p.nodes / expected_pod_seconds(p, cdf);
  Random arrivals(stream_seed(p.seed, arrivals_stream));
  std::vector<RawPod> pods;
  std::vector<RawBurst> bursts;
  std::vector<RawDeployment> levels;
  const double warmup = p.warmup_s > 0 ? p.warmup_s : 10 * p.deployment_lifetime_mean_s;
  for (double t = -warmup + arrivals.exponential(1 / trace.deployment_arrival_rate);
       t < p.duration_s; t += arrivals.exponential(1 / trace.deployment_arrival_rate)) {
    const auto index = static_cast<std::uint32_t>(levels.size());
    levels.push_back(live_deployment(p, cdf, index, t, pods, bursts));
  }
  compact(p, pods, bursts, levels, trace);
  return trace;
}

PodRates mean_pod_rates(const Trace& trace) {
  PodRates mean;
  if (trace.pods.empty()) return mean;
  for (const auto& pod : trace.pods) {
    mean.receive += pod.rate;
    mean.transmit += pod.transmit_rate;
  }
  const auto count = static_cast<double>(trace.pods.size());
  return {mean.receive / count, mean.transmit / count};
}

}  // namespace netscore::sim
