#include "bench/closed_loop/workload/workload_raw.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "bench/closed_loop/workload/workload.h"

namespace netscore::sim::raw {
namespace {

// Names as Kubernetes makes them: rand.SafeEncodeString's alphabet has no vowels nor look-alikes.
std::string encoded(Random& random, std::size_t length) {
  static constexpr std::string_view alphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  for (std::size_t i = 0; i < length; ++i) out += alphabet[random.integer(0, alphabet.size() - 1)];
  return out;
}

// So that a trace's pod list reads like a cluster's: a name says what kind of workload made it.
std::string_view name_prefix(OwnerKind kind) {
  switch (kind) {
    case OwnerKind::statefulset:
      return "db-";
    case OwnerKind::job:
      return "job-";
    case OwnerKind::none:
      return "ci-";
    case OwnerKind::replicaset:
      break;
  }
  return "app-";
}

// The headroom of a workload's declared ceilings over its traffic per pod, or 0 when it declares
// none: one draw per project (one pod template across its pipelines), else per workload.
double ceiling_headroom(const WorkloadParams& p, std::uint32_t workload, std::uint32_t project) {
  if (p.ceiling_fraction <= 0) return 0;
  const std::uint64_t key =
      project == kNoProject ? (std::uint64_t{1} << 20) + workload : std::uint64_t{project};
  Random random(stream_seed(p.seed, ceiling_stream + key));
  if (random.open01() >= p.ceiling_fraction) return 0;
  const double low = std::log(p.ceiling_headroom_min), high = std::log(p.ceiling_headroom_max);
  return std::exp(low + (high - low) * random.open01());
}

// Whether a workload's pods declare their traffic: one draw per project (one pod template across
// its pipelines), else per workload.
bool declares_traffic(const WorkloadParams& p, std::uint32_t workload, std::uint32_t project) {
  if (p.declared_fraction <= 0) return false;
  const std::uint64_t key =
      project == kNoProject ? (std::uint64_t{1} << 20) + workload : std::uint64_t{project};
  Random random(stream_seed(p.seed, declared_stream + key));
  return random.open01() < p.declared_fraction;
}

}  // namespace

void assemble(const WorkloadParams& p, const std::vector<Pod>& raw,
              const std::vector<Burst>& bursts, const std::vector<Workload>& workloads,
              Trace& trace) {
  constexpr double never = std::numeric_limits<double>::infinity();
  constexpr std::uint32_t none = 0xffffffff;
  std::vector<std::uint32_t> new_id(raw.size(), none);
  std::vector<std::uint32_t> new_workload(workloads.size(), none);
  std::vector<std::uint32_t> replicasets(workloads.size(), 0);
  std::vector<std::uint32_t> order;  // of the pods kept
  for (std::uint32_t id = 0; id < raw.size(); ++id) {
    const auto& pod = raw[id];
    if (pod.deleted <= 0) continue;
    order.push_back(id);
    replicasets[pod.workload] = std::max(replicasets[pod.workload], pod.replicaset + 1);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](auto a, auto b) { return raw[a].created < raw[b].created; });
  Random random(stream_seed(p.seed, names_stream));
  std::vector<std::vector<std::string>> hashes(workloads.size());
  // A StatefulSet's pods take the ordinals in creation order: none is ever replaced.
  std::vector<std::uint32_t> ordinals(workloads.size(), 0);
  std::unordered_set<std::string> names;
  for (const auto id : order) {
    const auto& pod = raw[id];
    const auto& workload = workloads[pod.workload];
    auto& index = new_workload[pod.workload];
    if (index == none) {
      index = static_cast<std::uint32_t>(trace.deployments.size());
      trace.deployments.push_back(
          {.name = std::string(name_prefix(workload.kind)) + padded(index, 4),
           .level = workload.level,
           .transmit_heavy = workload.transmit_heavy,
           .kind = workload.kind,
           .project = workload.project == kNoProject ? "" : project_name(workload.project)});
      auto& own = hashes[pod.workload];
      while (workload.kind == OwnerKind::replicaset && own.size() < replicasets[pod.workload]) {
        auto hash = encoded(random, 10);
        if (std::find(own.begin(), own.end(), hash) == own.end()) own.push_back(std::move(hash));
      }
    }
    PodSpec spec;
    spec.id = new_id[id] = static_cast<std::uint32_t>(trace.pods.size());
    spec.owner_kind = workload.kind;
    spec.deployment = index;
    spec.replicaset = trace.deployments[index].name;
    if (workload.kind == OwnerKind::replicaset) {
      spec.template_hash = hashes[pod.workload][pod.replicaset];
      spec.replicaset += "-" + spec.template_hash;
    }
    if (workload.kind == OwnerKind::statefulset) {
      spec.name = spec.replicaset + "-" + std::to_string(ordinals[pod.workload]++);
      names.insert(spec.name);
    } else {
      do {
        spec.name = spec.replicaset + "-" + encoded(random, 5);
      } while (!names.insert(spec.name).second);
    }
    const double minor = pod.rate * p.minor_direction_fraction;
    spec.rate = workload.transmit_heavy ? minor : pod.rate;
    spec.transmit_rate = workload.transmit_heavy ? pod.rate : minor;
    if (const double headroom = ceiling_headroom(p, pod.workload, workload.project); headroom > 0) {
      const double heavy = workload.level * headroom;
      const double light = heavy * p.minor_direction_fraction;
      spec.receive_ceiling = workload.transmit_heavy ? light : heavy;
      spec.transmit_ceiling = workload.transmit_heavy ? heavy : light;
    }
    if (declares_traffic(p, pod.workload, workload.project)) {
      const double heavy = workload.level * std::exp(p.pod_jitter_sigma * p.pod_jitter_sigma / 2);
      const double light = heavy * p.minor_direction_fraction;
      spec.declared_rate = workload.transmit_heavy ? light : heavy;
      spec.declared_transmit_rate = workload.transmit_heavy ? heavy : light;
    }
    spec.created_s = pod.created;
    spec.deleted_s = pod.deleted < p.duration_s ? pod.deleted : never;
    if (spec.created_s < 0) {
      spec.burst = kInitialBurst;
      trace.initial_pods.push_back(spec.id);
    }
    trace.pods.push_back(std::move(spec));
  }
  // Events: a create per instant of a burst at t >= 0, removes of the pods deleted before the end.
  struct Keyed {
    TraceEvent event;
    std::size_t seq;
    std::uint32_t burst;  // index in bursts; none for a remove
  };
  std::vector<Keyed> events;
  for (std::uint32_t b = 0; b < bursts.size(); ++b) {
    for (const auto id : bursts[b]) {
      const double t = raw[id].created;
      if (t < 0) continue;
      if (events.empty() || events.back().burst != b || events.back().event.t != t) {
        events.push_back({{t, TraceEvent::Kind::create, {}}, events.size(), b});
      }
      events.back().event.pods.push_back(new_id[id]);
    }
  }
  for (const auto& pod : trace.pods) {
    if (pod.deleted_s < never) {
      events.push_back({{pod.deleted_s, TraceEvent::Kind::remove, {pod.id}}, events.size(), none});
    }
  }
  std::sort(events.begin(), events.end(), [](const Keyed& a, const Keyed& b) {
    if (a.event.t != b.event.t) return a.event.t < b.event.t;
    if (a.event.kind != b.event.kind) return a.event.kind == TraceEvent::Kind::remove;
    return a.seq < b.seq;
  });
  std::vector<std::uint32_t> burst_ids(bursts.size(), none);
  std::uint32_t next_burst = 0;
  for (auto& keyed : events) {
    if (keyed.event.kind == TraceEvent::Kind::create) {
      auto& burst = burst_ids[keyed.burst];
      if (burst == none) burst = next_burst++;
      for (const auto id : keyed.event.pods) trace.pods[id].burst = burst;
    }
    trace.events.push_back(std::move(keyed.event));
  }
}

}  // namespace netscore::sim::raw
