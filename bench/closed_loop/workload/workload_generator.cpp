// The generator: every workload lived through into raw pods and bursts, then assembled into a
// Trace (workload_assembly.cpp) and given its drift (workload_drift.cpp).
#include "bench/closed_loop/workload/workload.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bench/closed_loop/workload/workload_raw.h"

namespace netscore::sim {
namespace raw {
namespace {

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
// negligible, x is its linear asymptote. A rolling update (of a Deployment's pods only) adds k
// (mean (N+1)/2) old pods for min(delay, remaining life), whose mean is T (1 - e^(-delay/T)).
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
  const double deployments = (1 - p.bare_fraction) * (1 - p.statefulset_fraction - p.job_fraction);
  return mean + deployments * (p.rolling_update_rate * T * (1 - std::exp(-p.rollout_delay_s / T)) *
                               (mean + T) / 2);
}

// One draw, and none unless some workloads have another owner than a ReplicaSet: the traces
// without them stay as they were.
OwnerKind owner_kind(const WorkloadParams& p, std::uint32_t index) {
  if (p.bare_fraction <= 0 && p.statefulset_fraction <= 0 && p.job_fraction <= 0) {
    return OwnerKind::replicaset;
  }
  Random random(stream_seed(p.seed, owner_stream + std::uint64_t{index}));
  const double u = random.open01();
  if (u < p.bare_fraction) return OwnerKind::none;
  const double owned = (u - p.bare_fraction) / (1 - p.bare_fraction);
  if (owned < p.statefulset_fraction) return OwnerKind::statefulset;
  if (owned < p.statefulset_fraction + p.job_fraction) return OwnerKind::job;
  return OwnerKind::replicaset;
}

// One workload's life from its arrival until it ends or the trace does; returns its level,
// direction and owner kind. Each draws from its own streams: the same workload whatever the
// others do.
Workload live_workload(const WorkloadParams& p, const std::vector<double>& cdf, std::uint32_t index,
                       double arrival, std::vector<Pod>& pods, std::vector<Burst>& bursts) {
  Random direction(stream_seed(p.seed, direction_stream + std::uint64_t{index}));
  const bool transmit_heavy =
      p.transmit_heavy_fraction > 0 && direction.open01() < p.transmit_heavy_fraction;
  const OwnerKind kind = owner_kind(p, index);
  Random random(stream_seed(p.seed, lifecycle_stream + std::uint64_t{index}));
  double level = random.lognormal(p.deployment_rate_median, p.deployment_rate_sigma);
  std::uint32_t project = kNoProject;
  if (kind == OwnerKind::none && p.projects > 0) {
    // From streams of their own: the lifecycle draws stay those of a trace without projects.
    Random pick(stream_seed(p.seed, project_stream + std::uint64_t{index}));
    project = static_cast<std::uint32_t>(pick.integer(0, p.projects - 1));
    Random project_level(stream_seed(p.seed, project_level_stream + std::uint64_t{project}));
    level = project_level.lognormal(p.deployment_rate_median, p.deployment_rate_sigma);
  }
  const double death = arrival + random.exponential(p.deployment_lifetime_mean_s);
  const double end = std::min(death, p.duration_s);
  std::uint32_t replicaset = 0;
  std::vector<std::uint32_t> live;
  double last_create = arrival;
  auto create = [&](double t, std::uint64_t k) {
    // Cut short so that every pod is created before its workload ends and before the trace does.
    const double span = std::min(p.create_spread_s, end - t);
    Burst burst;
    for (std::uint64_t i = 0; i < k; ++i) {
      const auto id = static_cast<std::uint32_t>(pods.size());
      // The bound only catches a rounding up to end when the span is cut to a sliver.
      last_create = std::min(t + span * static_cast<double>(i) / static_cast<double>(k),
                             std::nextafter(end, t));
      pods.push_back({index, replicaset, level * std::exp(p.pod_jitter_sigma * random.normal()),
                      last_create, death});
      burst.push_back(id);
      live.push_back(id);
    }
    bursts.push_back(std::move(burst));
  };
  const auto first = std::upper_bound(cdf.begin(), cdf.end(), random.open01()) - cdf.begin();
  create(arrival, p.replicas_min + std::min<std::uint64_t>(first, cdf.size() - 1));
  // Only a Deployment rolls: a Job's or a bare group's pods are never replaced, and a
  // StatefulSet's rolling update (each pod replaced in place under its own name, one at a time) is
  // left out to keep the model simple.
  const double updates = kind == OwnerKind::replicaset ? p.rolling_update_rate : 0;
  const double changes = p.scale_up_rate + updates;
  if (changes <= 0) return {level, transmit_heavy, kind, project};
  // Strictly later than the previous burst's last create: a controller finishes a burst before
  // the next change, so no pod is replaced before it exists or removed when it is created.
  for (double t = arrival;;) {
    t = std::max(t + random.exponential(1 / changes), std::nextafter(last_create, death));
    if (t >= end) return {level, transmit_heavy, kind, project};
    if (kind != OwnerKind::replicaset || random.open01() * changes < p.scale_up_rate) {
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

// Pods that die before their workload removes them (WorkloadParams::pod_lifetime_mean_s), from a
// stream of their own: the trace's other draws stay those of a trace without pod lives. The pod
// count a controller keeps is unchanged, so the arrival rate Little's law gives still holds for
// them; a Job's or a bare group's pods end early, and such traces carry fewer pods.
void end_pod_lives(const WorkloadParams& p, std::uint32_t index, const Workload& workload,
                   std::size_t first, std::vector<Pod>& pods, std::vector<Burst>& bursts) {
  if (p.pod_lifetime_mean_s <= 0) return;
  const bool replaced =
      workload.kind == OwnerKind::replicaset || workload.kind == OwnerKind::statefulset;
  Random random(stream_seed(p.seed, pod_life_stream + std::uint64_t{index}));
  // Replacements are appended and live their own lives in turn.
  for (std::size_t i = first; i < pods.size(); ++i) {
    const double dies = pods[i].created + random.exponential(p.pod_lifetime_mean_s);
    if (dies >= pods[i].deleted || dies >= p.duration_s) continue;
    Pod replacement = pods[i];
    pods[i].deleted = dies;
    if (!replaced) continue;
    replacement.created = dies;
    replacement.rate = workload.level * std::exp(p.pod_jitter_sigma * random.normal());
    bursts.push_back({static_cast<std::uint32_t>(pods.size())});
    pods.push_back(replacement);
  }
}

}  // namespace
}  // namespace raw

Trace generate_trace(const WorkloadParams& p) {
  Trace trace;
  trace.params = p;
  raw::Random node_random(raw::stream_seed(p.seed, raw::nodes_stream));
  raw::Random transmit_random(raw::stream_seed(p.seed, raw::transmit_nodes_stream));
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
    trace.node_names.push_back("node-" + raw::padded(n, width));
  }
  const auto cdf = raw::replica_cdf(p);
  trace.deployment_arrival_rate = p.pods_per_node * p.nodes / raw::expected_pod_seconds(p, cdf);
  raw::Random arrivals(raw::stream_seed(p.seed, raw::arrivals_stream));
  std::vector<raw::Pod> pods;
  std::vector<raw::Burst> bursts;
  std::vector<raw::Workload> workloads;
  const double warmup = p.warmup_s > 0 ? p.warmup_s : 10 * p.deployment_lifetime_mean_s;
  for (double t = -warmup + arrivals.exponential(1 / trace.deployment_arrival_rate);
       t < p.duration_s; t += arrivals.exponential(1 / trace.deployment_arrival_rate)) {
    const auto index = static_cast<std::uint32_t>(workloads.size());
    const std::size_t first = pods.size();
    workloads.push_back(raw::live_workload(p, cdf, index, t, pods, bursts));
    raw::end_pod_lives(p, index, workloads.back(), first, pods, bursts);
  }
  raw::assemble(p, pods, bursts, workloads, trace);
  raw::add_drift(p, trace);
  return trace;
}

}  // namespace netscore::sim
