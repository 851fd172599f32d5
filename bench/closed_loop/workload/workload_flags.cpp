#include "bench/closed_loop/workload/workload_flags.h"

#include <cstdint>
#include <iomanip>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>

#include "bench/closed_loop/workload/workload.h"
#include "bench/flags/flags.h"

// The workload's parameters as --name=value flags, the named scenarios, and their help.
namespace netscore::sim {

namespace {

using Member = std::variant<std::uint64_t WorkloadParams::*, unsigned WorkloadParams::*,
                            double WorkloadParams::*, bool WorkloadParams::*>;
struct Flag {
  std::string_view name;
  Member member;
  std::string_view help;
  bool in_seconds = false;  // takes a unit: 90, 1.5m
};

// Every parameter, as --name=value.
constexpr Flag kFlags[] = {
    {"seed", &WorkloadParams::seed, "random seed: the same seed gives the same trace"},
    {"nodes", &WorkloadParams::nodes, "cluster nodes"},
    {"duration-s", &WorkloadParams::duration_s, "simulated seconds of arrivals", true},
    {"background-median", &WorkloadParams::background_median,
     "median per-node background traffic, bytes/s (lognormal, fixed per node)"},
    {"background-sigma", &WorkloadParams::background_sigma, "log-sd of the background traffic"},
    {"deployment-rate-median", &WorkloadParams::deployment_rate_median,
     "median per-pod traffic of a deployment, bytes/s (lognormal per deployment)"},
    {"deployment-rate-sigma", &WorkloadParams::deployment_rate_sigma,
     "log-sd of the deployments' per-pod traffic (>= 0.5)"},
    {"pod-jitter-sigma", &WorkloadParams::pod_jitter_sigma,
     "log-sd of a pod's traffic around its deployment's"},
    {"replicas-min", &WorkloadParams::replicas_min, "fewest replicas of a new deployment"},
    {"replicas-max", &WorkloadParams::replicas_max, "most replicas of a new deployment"},
    {"replicas-zipf-exponent", &WorkloadParams::replicas_zipf_exponent,
     "P(min + i replicas) ~ 1 / (i + 1)^exponent; 0: uniform"},
    {"pods-per-node", &WorkloadParams::pods_per_node, "target mean of pods alive per node"},
    {"deployment-lifetime-mean-s", &WorkloadParams::deployment_lifetime_mean_s,
     "mean (exponential) lifetime of a deployment", true},
    {"pod-lifetime-mean-s", &WorkloadParams::pod_lifetime_mean_s,
     "mean (exponential) life of a pod, replaced at once by a Deployment or StatefulSet; 0: its "
     "workload's",
     true},
    {"rolling-update-rate", &WorkloadParams::rolling_update_rate,
     "rolling updates per live deployment per second"},
    {"rollout-delay-s", &WorkloadParams::rollout_delay_s,
     "seconds the replaced pods outlive their replacements", true},
    {"scale-up-rate", &WorkloadParams::scale_up_rate, "scale-ups per live deployment per second"},
    {"counter-days-min", &WorkloadParams::counter_days_min,
     "fewest days since boot of a node (its counter's start)"},
    {"counter-days-max", &WorkloadParams::counter_days_max, "most days since boot of a node"},
    {"warmup-s", &WorkloadParams::warmup_s,
     "seconds of arrivals before t = 0; 0: 10 deployment lifetimes", true},
    {"link-speed", &WorkloadParams::link_speed,
     "link speed of the fast nodes, bytes/s; 0: nodes export no speed"},
    {"slow-fraction", &WorkloadParams::slow_fraction,
     "fraction of the nodes on slow links (interleaved by index)"},
    {"slow-speed-factor", &WorkloadParams::slow_speed_factor,
     "a slow link's speed over a fast one's"},
    {"transmit-heavy-fraction", &WorkloadParams::transmit_heavy_fraction,
     "probability that a deployment mostly transmits (else it mostly receives)"},
    {"minor-direction-fraction", &WorkloadParams::minor_direction_fraction,
     "a pod's rate in its light direction over its heavy one"},
    {"bare-fraction", &WorkloadParams::bare_fraction,
     "probability that a new workload's pods have no controlling owner (CI runners)"},
    {"statefulset-fraction", &WorkloadParams::statefulset_fraction,
     "probability that a workload with an owner is a StatefulSet"},
    {"job-fraction", &WorkloadParams::job_fraction,
     "probability that a workload with an owner is a Job (the rest: Deployments)"},
    {"create-spread-s", &WorkloadParams::create_spread_s,
     "seconds over which a burst's pods are created one by one; 0: all at once", true},
    {"projects", &WorkloadParams::projects,
     "projects the workloads without an owner belong to, sharing traffic per pod; 0: none"},
    {"project-labels", &WorkloadParams::project_labels,
     "whether a project's pods carry app.kubernetes.io/name=<project>"},
    {"bare-app-label", &WorkloadParams::bare_app_label,
     "whether a pod without an owner carries the label app=<group>"},
    {"bare-generate-name", &WorkloadParams::bare_generate_name,
     "whether a pod without an owner is created with generateName <group>- (else a fixed name)"},
    {"drift-grow-fraction", &WorkloadParams::drift_grow_fraction,
     "probability that a workload's per-pod traffic grows once after its start"},
    {"drift-grow-factor", &WorkloadParams::drift_grow_factor,
     "what a growing workload's traffic is multiplied by"},
    {"drift-shrink-fraction", &WorkloadParams::drift_shrink_fraction,
     "probability that a workload's per-pod traffic shrinks once (if it does not grow)"},
    {"drift-shrink-factor", &WorkloadParams::drift_shrink_factor,
     "what a shrinking workload's traffic is multiplied by"},
    {"drift-from", &WorkloadParams::drift_from,
     "earliest drift moment, as a fraction of --duration-s"},
    {"drift-to", &WorkloadParams::drift_to, "latest drift moment, as a fraction of --duration-s"},
    {"drift-ramp", &WorkloadParams::drift_ramp,
     "how long a drift takes to reach its factor in equal steps, as a fraction of --duration-s; "
     "0: at once"},
    {"drift-workloads", &WorkloadParams::drift_workloads,
     "grow exactly this many workloads (by --drift-grow-factor) and drift no other; 0: by the "
     "fractions"},
    {"ceiling-fraction", &WorkloadParams::ceiling_fraction,
     "probability that a workload's pods declare kubernetes.io/*-bandwidth ceilings"},
    {"declared-fraction", &WorkloadParams::declared_fraction,
     "probability that a workload's pods declare their traffic (netscore.io/expected-*-rate)"},
    {"ceiling-headroom-min", &WorkloadParams::ceiling_headroom_min,
     "least declared ceiling over the workload's traffic per pod"},
    {"ceiling-headroom-max", &WorkloadParams::ceiling_headroom_max,
     "greatest declared ceiling over the workload's traffic per pod"},
};

// Every parameter some scenario sets: "standard" puts them back to their defaults.
constexpr Member kScenarioMembers[] = {
    &WorkloadParams::link_speed,
    &WorkloadParams::slow_fraction,
    &WorkloadParams::slow_speed_factor,
    &WorkloadParams::transmit_heavy_fraction,
    &WorkloadParams::minor_direction_fraction,
    &WorkloadParams::background_median,
    &WorkloadParams::deployment_rate_median,
    &WorkloadParams::bare_fraction,
    &WorkloadParams::statefulset_fraction,
    &WorkloadParams::job_fraction,
    &WorkloadParams::create_spread_s,
    &WorkloadParams::deployment_lifetime_mean_s,
    &WorkloadParams::pod_lifetime_mean_s,
    &WorkloadParams::background_sigma,
    &WorkloadParams::deployment_rate_sigma,
    &WorkloadParams::replicas_min,
    &WorkloadParams::replicas_max,
    &WorkloadParams::replicas_zipf_exponent,
    &WorkloadParams::scale_up_rate,
    &WorkloadParams::pods_per_node,
    &WorkloadParams::projects,
    &WorkloadParams::project_labels,
    &WorkloadParams::rolling_update_rate,
    &WorkloadParams::drift_grow_fraction,
    &WorkloadParams::drift_grow_factor,
    &WorkloadParams::drift_shrink_fraction,
    &WorkloadParams::drift_shrink_factor,
    &WorkloadParams::drift_ramp,
    &WorkloadParams::drift_workloads,
};

}  // namespace

std::string apply_scenario(WorkloadParams& params, std::string_view name) {
  if (name == "standard") {
    const WorkloadParams defaults;
    for (const auto& member : kScenarioMembers) {
      std::visit([&](auto m) { params.*m = defaults.*m; }, member);
    }
    return {};
  }
  if (name == "heterogeneous") {
    params.link_speed = 1.25e9;
    params.slow_fraction = 1.0 / 3;
    params.slow_speed_factor = 0.1;
    params.transmit_heavy_fraction = 0.5;
    params.minor_direction_fraction = 0.1;
    // 5% of a link at the median, both directions, on every node.
    params.background_median = 0.05 * params.link_speed;
    // A pod's mean in its direction is 1.68x the median (lognormal sigma 1, jitter 0.2), half
    // the pods are heavy in a direction and the other half add a tenth: 12.5 pods of a node
    // carry 11.6 x 2e7 = 2.3e8 bytes/s each way, 18.5% of a fast link.
    params.deployment_rate_median = 2e7;
    return {};
  }
  if (name == "bare-bursts") {
    // CI runners (Actions Runner Controller's workflow pods, Jenkins agents, Airflow's pod
    // operator): no owner, created one by one within 2 s, a pipeline ending after a minute on
    // average (15 minutes of a real cluster's time at the benchmark's scale), more runners
    // launched every 2 minutes of a pipeline on average.
    params.bare_fraction = 1;
    params.create_spread_s = 2;
    params.deployment_lifetime_mean_s = 60;
    params.scale_up_rate = 1.0 / 120;
    // 4 to 40 runners, P(4 + i) ~ 1 / (i + 1)^0.75: a mean of 14.5, 28% of 20 or more.
    params.replicas_min = 4;
    params.replicas_max = 40;
    params.replicas_zipf_exponent = 0.75;
    // Runners fetch images, caches and artefacts: 5x the standard pod, whose node carries 12.5
    // x 1.68 x 1e6 = 2.1e7 bytes/s of them on average against a background of 1e6.
    params.deployment_rate_median = 1e6;
    params.pods_per_node = WorkloadParams{}.pods_per_node;
    return {};
  }
  if (name == "mixed-owners") {
    // A fifth of the workloads are bare pods; of the others 15% StatefulSets, 25% Jobs, 60%
    // Deployments (48% of all), their pods created in one instant as the standard scenario's.
    params.bare_fraction = 0.2;
    params.statefulset_fraction = 0.15;
    params.job_fraction = 0.25;
    return {};
  }
  if (name == "ci-runners" || name == "ci-runners-labelled") {
    // CI runners of 12 projects (GitLab's Kubernetes executor, Actions Runner Controller): each
    // pipeline one burst of bare runners, created one by one within 2 s, living 20 s on average
    // (5 minutes of a real cluster's time at the benchmark's scale). A project's runners do alike
    // work, pipeline after pipeline: its level is drawn once, as a deployment's.
    params.bare_fraction = 1;
    params.projects = 12;
    params.project_labels = name == "ci-runners-labelled";
    params.create_spread_s = 2;
    params.deployment_lifetime_mean_s = 20;
    params.scale_up_rate = 0;
    // 4 to 40 runners as bare-bursts': a mean of 14.5, 28% of 20 or more.
    params.replicas_min = 4;
    params.replicas_max = 40;
    params.replicas_zipf_exponent = 0.75;
    // Twice the standard pod's traffic.
    params.deployment_rate_median = 2 * WorkloadParams{}.deployment_rate_median;
    params.pods_per_node = WorkloadParams{}.pods_per_node;
    return {};
  }
  if (name == "drift" || name == "drift-quiet" || name == "drift-busy" || name == "drift-one" ||
      name == "drift-gradual") {
    // Long-lived Deployments (ten hours on average, no rolling update, no scale-up): the pods
    // placed before the drift are still there after it, and only a descheduler moves them.
    params.deployment_lifetime_mean_s = 36000;
    params.rolling_update_rate = 0;
    params.scale_up_rate = 0;
    // At least two replicas: the descheduler's minReplicas leaves a Deployment's only pod alone.
    params.replicas_min = 2;
    params.replicas_max = 10;
    params.replicas_zipf_exponent = 1;
    // Every node on 1 GbE (125 MB/s), so that the descheduler reads a utilisation. A node
    // carries 12.5 x 1.68 x 7.5e5 = 1.6e7 bytes/s of pods and 6.8e6 of background: 18% of its
    // link on average before the drift.
    params.link_speed = 1.25e8;
    params.slow_fraction = 0;
    params.background_median = 6e6;
    params.deployment_rate_median = 7.5e5;
    params.pods_per_node = WorkloadParams{}.pods_per_node;
    // A quarter of the Deployments grow sixfold, a sixth shrink fourfold: the mean utilisation
    // doubles, and in 180 s at 20 nodes every seed of 1-7 has nodes above 1.5x the mean that no
    // placement made hot (a weaker drift, a sixth growing fourfold, left seeds 2 and 4 without).
    params.drift_grow_fraction = 0.25;
    params.drift_grow_factor = 6;
    params.drift_shrink_fraction = 1.0 / 6;
    params.drift_shrink_factor = 0.25;
    // The same drift at half and twice the load: 9 % and 36 % of a link before it, 18 % and 72 %
    // after. A descheduler's lines in points of utilisation act differently at each level.
    const double load = name == "drift-quiet" ? 0.5 : name == "drift-busy" ? 2 : 1;
    params.background_median *= load;
    params.deployment_rate_median *= load;
    // Other shapes at the medium load: one workload growing twentyfold (its pods, spread over
    // several nodes, each make theirs hot), or the same drift reached over a third of the run.
    if (name == "drift-one") {
      params.drift_workloads = 1;
      params.drift_grow_factor = 20;
    } else if (name == "drift-gradual") {
      params.drift_ramp = 1.0 / 3;
    }
    return {};
  }
  if (name == "churn") {
    // Short-lived pods in long-lived Deployments, rolled often, heavy tails: a pod lives a minute
    // on average (15 minutes of a real cluster's time at the benchmark's scale), a Deployment ten;
    // with about a hundred Deployments live, one is rolled somewhere every 15 s. Per-deployment
    // traffic with sigma 1.2, node backgrounds with 0.7 (the busiest node's alone near a whole
    // node's mean load), 14.5 pods per node.
    params.pod_lifetime_mean_s = 60;
    params.deployment_lifetime_mean_s = 600;
    params.rolling_update_rate = 1.0 / 1500;
    params.scale_up_rate = 1.0 / 1800;
    params.deployment_rate_sigma = 1.2;
    params.background_sigma = 0.7;
    params.pods_per_node = 14.5;
    return {};
  }
  if (name == "long-lived") {
    // Deployments living ten hours, each rolled once an hour and scaled up about once in its
    // life: placements stay, and what the window measures is what the cluster carries.
    params.deployment_lifetime_mean_s = 36000;
    params.rolling_update_rate = 1.0 / 3600;
    params.scale_up_rate = 1.0 / 36000;
    return {};
  }
  if (name == "heavy-tails") {
    // The standard life cycle with the heaviest tails of the class: per-deployment traffic with
    // sigma 1.5, node backgrounds with 1.0.
    params.deployment_rate_sigma = 1.5;
    params.background_sigma = 1.0;
    return {};
  }
  if (name == "light-tails") {
    // The standard life cycle with deployments and nodes alike: sigma 0.5 and 0.3.
    params.deployment_rate_sigma = 0.5;
    params.background_sigma = 0.3;
    return {};
  }
  return "unknown scenario \"" + std::string(name) +
         "\" (standard, heterogeneous, bare-bursts, mixed-owners, ci-runners, "
         "ci-runners-labelled, drift, drift-quiet, drift-busy, drift-one, drift-gradual, churn, "
         "long-lived, heavy-tails, light-tails)";
}

void add_workload_options(flags::po::options_description& options, WorkloadParams& params) {
  options.add_options()("scenario", flags::po::value<std::string>(),
                        "a named scenario, applied before the other flags");
  flags::add_members(options, params, kFlags);
}

void apply_scenario_flag(const flags::po::variables_map& flags, WorkloadParams& params) {
  if (flags.count("scenario") == 0) return;
  const auto& name = flags["scenario"].as<std::string>();
  if (const auto error = apply_scenario(params, name); !error.empty())
    throw flags::po::error("--scenario=" + name + ": " + error);
}

std::string apply_flag(WorkloadParams& params, std::string_view name, std::string_view value) {
  while (name.starts_with('-')) name.remove_prefix(1);
  flags::po::options_description options;
  add_workload_options(options, params);
  return flags::apply(options, {"--" + std::string(name) + "=" + std::string(value)},
                      [&](const flags::po::variables_map& vm) { apply_scenario_flag(vm, params); });
}

std::string workload_help() {
  const WorkloadParams defaults;
  std::ostringstream out;
  out << "  --" << std::left << std::setw(34) << "scenario=standard"
      << "standard, heterogeneous, bare-bursts, mixed-owners, ci-runners, ci-runners-labelled, "
         "drift, drift-quiet, drift-busy, drift-one, drift-gradual, churn, long-lived, heavy-tails or light-tails (sets the "
         "flags it needs; later flags override)\n";
  for (const auto& flag : kFlags) {
    std::ostringstream value;
    std::visit([&](auto member) { value << std::boolalpha << defaults.*member; }, flag.member);
    out << "  --" << std::left << std::setw(34) << (std::string(flag.name) + "=" + value.str())
        << flag.help << "\n";
  }
  return out.str();
}

}  // namespace netscore::sim
