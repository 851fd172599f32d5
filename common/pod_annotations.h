#pragma once

#include <string>
#include <string_view>

// Annotations a workload sets on its pods to say how much traffic one pod receives and transmits
// (bytes/s: a plain number or a quantity such as "10Mi", common/quantity.h). The collector prices
// placed pods with them; the extender prices the pod it is asked to place.
namespace netscore {

inline constexpr std::string_view kExpectedRateAnnotation = "netscore.io/expected-receive-rate";
inline constexpr std::string_view kExpectedTransmitRateAnnotation =
    "netscore.io/expected-transmit-rate";

// The bandwidth a pod declares it is shaped to (bits per second, as the CNI bandwidth plugin reads
// them, within the plugin's bounds): a ceiling on what the pod is priced at in each direction.
inline constexpr std::string_view kIngressBandwidthAnnotation = "kubernetes.io/ingress-bandwidth";
inline constexpr std::string_view kEgressBandwidthAnnotation = "kubernetes.io/egress-bandwidth";
inline constexpr double kMinBandwidthBits = 1e3;
inline constexpr double kMaxBandwidthBits = 1e15;

// The recommended label naming a pod's application: the workload of a pod without a controlling
// owner (the collector keys it "namespace/label/<value>", the extender spreads its bursts).
inline constexpr std::string_view kAppNameLabel = "app.kubernetes.io/name";

// A workload's key, "namespace/kind/name": kind is its controller's (a ReplicaSet's Deployment, a
// Job's CronJob), kLabelWorkloadKind for pods named by a label, "generateName", or
// kCreatedWorkloadKind for pods of none of these, named by their creationTimestamp. The collector
// learns prices under it and the extender spreads a labelled burst under it, so both key the same
// workload alike.
inline constexpr std::string_view kLabelWorkloadKind = "label";
inline constexpr std::string_view kCreatedWorkloadKind = "created";
inline std::string workload_key(std::string_view namespace_name, std::string_view kind,
                                std::string_view name) {
  std::string key(namespace_name);
  key.append("/").append(kind).append("/").append(name);
  return key;
}

// The label the collector sets (NETSCORE_REBALANCE_LABEL) on the pod a descheduler should evict
// from an over-utilised node, the one pod its DefaultEvictor's labelSelector then matches.
inline constexpr std::string_view kRebalanceLabel = "netscore.io/rebalance";
inline constexpr std::string_view kRebalanceLabelValue = "evict";

}  // namespace netscore
