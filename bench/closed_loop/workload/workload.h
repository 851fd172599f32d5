#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// The pods a closed-loop run schedules, generated up front from a seed so that every policy
// faces the same arrivals, rates and deletions: only placement differs between runs. Nothing
// here knows about nodes except their background traffic, which no policy can move.
namespace netscore::sim {

// Rates are bytes/s; times are the simulator's seconds (already scaled).
struct WorkloadParams {
  std::uint64_t seed = 1;
  unsigned nodes = 30;
  double duration_s = 1800;  // arrivals happen in [0, duration_s)
  double background_median = 1e6;
  double background_sigma = 0.5;
  double deployment_rate_median = 2e5;  // per pod of a deployment, lognormal per deployment
  double deployment_rate_sigma = 1.0;   // heavy tails by default; validate() wants >= 0.5
  double pod_jitter_sigma = 0.2;        // per-pod lognormal jitter around its deployment's level
  // A new deployment creates all its replicas in one burst. The count is Zipf-like over
  // [min, max], P(min + i) proportional to 1 / (i + 1)^exponent: with the defaults 44% of new
  // deployments have 1 replica, the mean is 4.2 and 4% have 20 or more, so the large bursts
  // that pile onto one node happen in every run. Exponent 0 is uniform.
  unsigned replicas_min = 1, replicas_max = 30;
  double replicas_zipf_exponent = 1.5;
  // Target mean of pods alive per node: the deployment arrival rate follows by Little's law.
  // It is the mean over seeds: one 30-minute run's mean swings by about 20% (10.5 to 15.5 over
  // seeds 1-10), since one large deployment that scales up is several percent of the cluster.
  double pods_per_node = 12.5;
  double deployment_lifetime_mean_s = 240;  // exponential; at its end every live pod is deleted
  // A pod's own life, exponential, from its creation: a Deployment's or a StatefulSet's pod that
  // dies is replaced by its controller at once (a pod of the same owner, a burst of its own), a
  // Job's or a bare pod ends (its work done). 0: pods live as long as their workload or rollout.
  double pod_lifetime_mean_s = 0;
  // "live": the pods of a deployment not already bound for deletion (its desired replicas).
  // Poisson per live deployment: k of its live pods (k uniform 1..live, chosen at random) are
  // replaced by pods of a new ReplicaSet, created at t; the old ones are deleted at
  // t + rollout_delay_s (or when the deployment ends, if sooner).
  double rolling_update_rate = 1.0 / 120;
  double rollout_delay_s = 2;
  // Poisson per live deployment: k (uniform 1..max(1, live/2)) pods of its current ReplicaSet.
  double scale_up_rate = 1.0 / 180;
  // Node counters start at (uniform days since boot) x 86400 x background, so that scorers
  // reading raw counters see values of realistic, different magnitudes.
  double counter_days_min = 1, counter_days_max = 30;
  // Arrivals start this long before t = 0 so that the cluster starts in its steady state; the
  // pods alive at 0 are Trace::initial_pods. 0 picks 10 lifetime means: scale-ups make old
  // deployments the big ones, so after only 3 the cluster would still be ~14% short.
  double warmup_s = 0;
  // Links. 0: the nodes export no link speed (the utilisation basis has nothing to divide by).
  // Otherwise the fast nodes' speed; slow_fraction of the nodes, interleaved by index, run at
  // slow_speed_factor of it, and every node's background (both directions) is scaled by its
  // speed over link_speed, so that background_median is the fast nodes' and a slow link is not
  // full before its first pod.
  double link_speed = 0;
  double slow_fraction = 0;
  double slow_speed_factor = 0.1;
  // Each deployment is receive-heavy or, with this probability, transmit-heavy: its heavy
  // direction carries the drawn rate, the other minor_direction_fraction of it.
  double transmit_heavy_fraction = 0;
  double minor_direction_fraction = 0.1;
  // Owners, drawn per workload (what the rest of this file calls a deployment). With probability
  // bare_fraction its pods have no controlling owner: a group of them such as a CI pipeline's
  // runners, named "<group>-<5 chars>". Of the others, statefulset_fraction are StatefulSets
  // ("<name>-<ordinal>"), job_fraction Jobs ("<job>-<5 chars>") and the rest Deployments. Only
  // Deployments have rolling updates; a scale-up of any kind adds pods of the same owner or group.
  double bare_fraction = 0;
  double statefulset_fraction = 0;
  double job_fraction = 0;
  // A burst's pods are created one by one, evenly over this many seconds (cut short so that all
  // are created before their workload ends or the trace does); 0: in one instant, one event.
  double create_spread_s = 0;
  // Workloads without an owner (CI pipelines) each belong to one of this many projects, drawn
  // uniformly: a project's pods share its traffic level (drawn as a deployment's) across all its
  // pipelines. 0: each pipeline draws its own level, as the other kinds do.
  unsigned projects = 0;
  // Whether a project's pods say so: the label app.kubernetes.io/name=<project>, the identity a
  // scorer can learn a project's traffic per pod by. The trace is the same either way.
  bool project_labels = false;
  // What a pod without an owner carries besides a project's label: the label app=<group> (a
  // pipeline's runners), and the generateName "<group>-" its creator sets. Without either, the
  // collector knows a burst's pods only by the second they were created in.
  bool bare_app_label = true;
  bool bare_generate_name = true;
  // Traffic drift: each workload's per-pod traffic is multiplied once, at a moment uniform in
  // [drift_from, drift_to) x duration_s, by drift_grow_factor with probability
  // drift_grow_fraction or else by drift_shrink_factor with probability drift_shrink_fraction.
  // Its pods running then change rate at that moment (a TraceEvent::Kind::rescale), its later
  // pods are created at the new rate. 0 and 0: no drift, the traces as before.
  double drift_grow_fraction = 0, drift_grow_factor = 4;
  double drift_shrink_fraction = 0, drift_shrink_factor = 0.25;
  double drift_from = 0.1, drift_to = 0.6;
  // The drift's shapes beside a step of many workloads: drift_ramp > 0 reaches each workload's
  // factor gradually, in kDriftSteps equal (geometric) steps over drift_ramp x duration_s from its
  // moment; drift_workloads > 0 grows exactly that many workloads (drawn among those running at
  // their moment) and no other drifts, whatever the fractions.
  double drift_ramp = 0;
  unsigned drift_workloads = 0;
  static constexpr unsigned kDriftSteps = 8;
  // Declared bandwidth ceilings (kubernetes.io/ingress-bandwidth, egress-bandwidth): with
  // probability ceiling_fraction a workload's pods (a project's, where it has one: one template)
  // declare in each direction its level there times a headroom drawn log-uniformly in
  // [ceiling_headroom_min, ceiling_headroom_max], from streams of their own: the trace's traffic
  // is the same with or without ceilings, so a run without them is the baseline of one with them.
  double ceiling_fraction = 0;
  double ceiling_headroom_min = 2, ceiling_headroom_max = 8;
  // Declared traffic (netscore.io/expected-receive-rate, expected-transmit-rate): with probability
  // declared_fraction a workload's pods (a project's, where it has one) declare in each direction
  // the mean traffic of its pods there as it starts (its level times the mean of their jitter), as
  // an operator who measured the workload once would; from a stream of its own, so the trace's
  // traffic is the same with or without declarations.
  double declared_fraction = 0;
};

// "--scenario=<name>": "standard" (the defaults above, for every parameter another scenario
// sets); "heterogeneous": a third of 30 nodes on 1 GbE (125 MB/s), the rest on 10 GbE, half the
// deployments transmit-heavy, traffic scaled so that the links' average utilisation is about a
// third where capacity is shared by speed but about two on the slow links where bytes are shared
// evenly (bench/RESULTS.md says why); "bare-bursts": CI runners, every pod without an owner,
// short-lived, network-heavy, in large bursts created one by one; "mixed-owners": Deployments
// among bare pods, Jobs and StatefulSets; "ci-runners": bursts of bare runners of 12 projects,
// short-lived, twice as heavy as the standard pods, without any identity; "ci-runners-labelled":
// the same trace, its pods labelled with their project; "drift": long-lived Deployments on 1 GbE
// links whose traffic grows sixfold or shrinks fourfold after placement (workload_flags.cpp has
// the figures), "drift-quiet" and "drift-busy" the same at half and twice its load; "churn": pods
// living a minute in Deployments rolled somewhere every 15 s, heavy tails; "long-lived":
// Deployments of hours; "heavy-tails" and "light-tails": the standard life cycle with traffic and
// backgrounds more or less alike (workload_flags.cpp has the figures). Sets only the parameters it
// names: flags after it override them.
std::string apply_scenario(WorkloadParams& params, std::string_view name);

// Empty if every parameter is usable, else a message naming the first bad one.
std::string validate(const WorkloadParams& params);

// The burst of a pod created before t = 0 (one of Trace::initial_pods).
inline constexpr std::uint32_t kInitialBurst = 0xffffffff;

// What controls a pod, as kube-scheduler and netscore see it: a ReplicaSet (a Deployment's pods)
// or a StatefulSet are found by PodTopologySpread's default constraints, a Job is not; a pod
// without a controlling owner (CI runners, workflow operators' pods) has no siblings anyone
// knows of.
enum class OwnerKind { replicaset, statefulset, job, none };

struct PodSpec {
  std::uint32_t id = 0;  // index in Trace::pods
  OwnerKind owner_kind = OwnerKind::replicaset;
  std::string ns = "default";
  std::string name;  // as its owner kind's controller names it (WorkloadParams::bare_fraction)
  std::uint32_t deployment = 0;  // index in Trace::deployments
  // The controlling owner's name: "<deployment name>-<template hash>" for a ReplicaSet, the
  // workload's name for a StatefulSet or a Job; the burst's group name for a pod without an owner
  // (never an owner reference then).
  std::string replicaset;
  std::string template_hash;  // the pod-template-hash label value; empty but for a ReplicaSet's
  // The pods created by one change of a workload share it, whether created in one instant (one
  // event) or one by one: numbered from 0 in the order of the bursts' first creates at t >= 0;
  // kInitialBurst for a pod created before t = 0.
  std::uint32_t burst = 0;
  double rate = 0;           // true receive bytes/s while running
  double transmit_rate = 0;  // true transmit bytes/s while running
  // Bytes/s of its declared ceilings (WorkloadParams::ceiling_fraction); < 0: none declared.
  double receive_ceiling = -1;
  double transmit_ceiling = -1;
  // Bytes/s it declares it moves (WorkloadParams::declared_fraction); < 0: none declared.
  double declared_rate = -1;
  double declared_transmit_rate = -1;
  double created_s = 0;
  double deleted_s = 0;  // infinity if it outlives duration_s
};

// The Unix time of a trace's t = 0 in the API objects both loops make of it (the virtual clock's
// wall time).
inline constexpr std::int64_t kTraceEpochMs = 1'700'000'000'000;
// A pod's metadata.creationTimestamp: the whole second it was created in, Unix seconds, and as
// the API server writes it ("2023-11-14T22:13:20Z").
std::int64_t creation_second(const PodSpec& pod);
std::string creation_timestamp(const PodSpec& pod);

// A workload: a Deployment, a StatefulSet, a Job or a group of pods without an owner.
struct Deployment {
  std::string name;
  double level = 0;  // the median per-pod rate of its pods in their heavy direction
  bool transmit_heavy = false;
  OwnerKind kind = OwnerKind::replicaset;
  std::string project{};  // of a workload without an owner (WorkloadParams::projects); or empty
  // WorkloadParams' drift: the moment its per-pod traffic changes and the factor (1: never).
  double drift_s = 0;
  double drift_factor = 1;
};

struct TraceEvent {
  double t = 0;
  enum class Kind { create, remove, rescale } kind = Kind::create;
  // create: the pods of a burst created at t (PodSpec::burst says which burst); remove: one pod;
  // rescale: the running pods of one workload, whose rates are multiplied by `factor` from t on
  std::vector<std::uint32_t> pods;
  double factor = 1;
};

struct Trace {
  WorkloadParams params;
  std::vector<double> background;     // per node, receive bytes/s
  std::vector<double> counter_start;  // per node, receive bytes at t = 0
  std::vector<double> background_transmit;
  std::vector<double> counter_start_transmit;
  std::vector<double> speed;            // per node, bytes/s; all 0 when link_speed is
  std::vector<std::string> node_names;  // zero-padded so that name order is index order
  std::vector<Deployment> deployments;
  std::vector<PodSpec> pods;
  // Every event in [0, duration_s), sorted by t; at equal t removes come first, so that a freed
  // slot is visible to a create, and rescales last. Pods are numbered in creation order.
  // PodSpec's rates are a pod's at its creation: a rescale before changes them.
  std::vector<TraceEvent> events;
  std::vector<std::uint32_t> initial_pods;  // alive at t = 0 in creation order, placed before
  double deployment_arrival_rate = 0;       // per second, from Little's law (workload.cpp)
};

// Deterministic for a seed on every platform: mt19937_64 and hand-written distributions (the
// std:: ones may differ between standard library versions). Expects validate(params) empty.
Trace generate_trace(const WorkloadParams& params);

// One flag "--name=value" (the name with or without its dashes) through the options the
// commands parse (workload_flags.h); "--scenario=<name>" applies at once. Returns an error
// message naming the flag, or empty.
std::string apply_flag(WorkloadParams& params, std::string_view name, std::string_view value);
// One line per flag: name, default, help.
std::string workload_help();

}  // namespace netscore::sim
