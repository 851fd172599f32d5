#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "bench/closed_loop/workload/workload.h"

// The generator's two halves and what passes between them: workload_generator.cpp lives every
// workload through and yields raw pods and bursts; workload_assembly.cpp renumbers, names and
// orders them into a Trace. Both draw from seeded streams, so each half's draws leave the other's
// as they were.
namespace netscore::sim::raw {

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
inline std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t z = seed + stream * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
// lifecycle_stream + i is workload i's; direction_stream + i its heavy direction's and
// owner_stream + i its owner kind's: apart from its lifecycle, so that traces without
// transmit-heavy workloads or without owner kinds other than ReplicaSets stay as they were;
// drift_stream + d the drift of the trace's workload d.
enum Stream : std::uint64_t {
  nodes_stream = 1,
  arrivals_stream,
  names_stream,
  lifecycle_stream,
  transmit_nodes_stream = std::uint64_t{1} << 40,
  direction_stream = std::uint64_t{1} << 41,
  owner_stream = std::uint64_t{1} << 42,
  drift_stream = std::uint64_t{1} << 43,
  project_stream = std::uint64_t{1} << 44,        // + workload: its project
  project_level_stream = std::uint64_t{1} << 45,  // + project: its level
  ceiling_stream = std::uint64_t{1} << 46,
  pod_life_stream = std::uint64_t{1} << 47,  // + workload: its pods' own lives  // + project, else
                                             // 1 << 20 + workload: its ceilings
  drift_choice_stream = std::uint64_t{1} << 48,  // which workloads drift_workloads grows
  declared_stream = std::uint64_t{1} << 49,      // + project, else 1 << 20 + workload: declares?
};

inline std::string padded(std::size_t value, std::size_t width) {
  std::string digits = std::to_string(value);
  return std::string(width > digits.size() ? width - digits.size() : 0, '0') + digits;
}

struct Pod {
  std::uint32_t workload;
  std::uint32_t replicaset;  // ordinal of its ReplicaSet within a Deployment; 0 for other kinds
  double rate;               // in the heavy direction
  double created;
  double deleted;
};
inline constexpr std::uint32_t kNoProject = 0xffffffff;

struct Workload {
  double level;
  bool transmit_heavy;
  OwnerKind kind;
  std::uint32_t project = kNoProject;
};

// "project-07": a project's name, the value of its pods' app.kubernetes.io/name label.
inline std::string project_name(std::uint32_t project) {
  return "project-" + padded(project, 2);
}
// The pods one change of a workload creates, in creation order.
using Burst = std::vector<std::uint32_t>;

// Renumbers the pods alive at 0 or created later in creation order, names them as their owner
// kind's controller would, and orders their creates (one per instant of a burst) and removes.
void assemble(const WorkloadParams& p, const std::vector<Pod>& pods,
              const std::vector<Burst>& bursts, const std::vector<Workload>& workloads,
              Trace& trace);

// The workloads' traffic drift (WorkloadParams::drift_*) on an assembled trace: each workload's
// moment and factor, its later pods' rates, and a rescale event of the pods running then.
void add_drift(const WorkloadParams& p, Trace& trace);

}  // namespace netscore::sim::raw
