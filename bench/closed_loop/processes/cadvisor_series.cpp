#include "bench/closed_loop/processes/cadvisor_series.h"

#include <cstdint>
#include <functional>
#include <iterator>
#include <span>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "bench/closed_loop/processes/kube_objects_json.h"

namespace netscore::sim {
namespace {

// One 64-bit draw per (pod, purpose): stable within a process, which is all a page needs.
std::uint64_t pod_hash(const PodCounters& pod, std::string_view purpose) {
  return std::hash<std::string>{}(fmt::format("{}/{}/{}", purpose, pod.ns, pod.name));
}

std::string pod_uid(const PodCounters& pod) {
  const std::uint64_t a = pod_hash(pod, "uid-a"), b = pod_hash(pod, "uid-b");
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", a >> 32, (a >> 16) & 0xffff, a & 0xffff,
                     b >> 48, b & 0xffffffffffffULL);
}

// The labels kube-prometheus' kubelet ServiceMonitor puts on a node's cAdvisor target: the
// Service "kubelet" in kube-system, its https-metrics port on the node's address (made up from
// its index), and metrics_path relabelled from __metrics_path__.
std::string target_labels(std::span<const std::string> nodes, std::size_t node) {
  return fmt::format(
      "endpoint=\"https-metrics\",instance=\"10.0.{}.{}:10250\",job=\"kubelet\","
      "metrics_path=\"/metrics/cadvisor\",node=\"{}\",service=\"kubelet\"",
      node / 256, node % 256, nodes[node]);
}

void family(std::string& body, PodSeries series, const NodeCounters& nodes,
            std::span<const PodCounters> pods, bool receive) {
  const std::string_view direction = receive ? "receive" : "transmit";
  fmt::format_to(std::back_inserter(body),
                 "# HELP container_network_{0}_bytes_total Cumulative count of bytes {1}\n"
                 "# TYPE container_network_{0}_bytes_total counter\n",
                 direction, receive ? "received" : "transmitted");
  // Integral bytes, as the kernel counts them; label names in order, as the kubelet writes them.
  for (std::size_t n = 0; n < nodes.nodes.size(); ++n) {
    fmt::format_to(std::back_inserter(body),
                   "container_network_{}_bytes_total{{container=\"\",id=\"/\",image=\"\","
                   "interface=\"eth0\",name=\"\",namespace=\"\",pod=\"\",{}}} {:.0f}\n",
                   direction, target_labels(nodes.nodes, n),
                   receive ? nodes.receive[n] : nodes.transmit[n]);
  }
  const bool labelled = series == PodSeries::cadvisor;
  for (const auto& pod : pods) {
    fmt::format_to(std::back_inserter(body),
                   "container_network_{}_bytes_total{{container=\"\",id=\"{}\",image=\"{}\","
                   "interface=\"eth0\",name=\"{}\",namespace=\"{}\",pod=\"{}\",{}}} {:.0f}\n",
                   direction, pod_cgroup_path(pod), labelled ? kube_json::kPodImage : "",
                   labelled ? sandbox_id(pod) : "", labelled ? pod.ns : "",
                   labelled ? pod.name : "", target_labels(nodes.nodes, pod.node),
                   receive ? pod.receive : pod.transmit);
  }
}

}  // namespace

std::string pod_cgroup_path(const PodCounters& pod) {
  return fmt::format("/kubepods/burstable/pod{}/{}", pod_uid(pod), sandbox_id(pod));
}

std::string sandbox_id(const PodCounters& pod) {
  return fmt::format("{:016x}{:016x}{:016x}{:016x}", pod_hash(pod, "sandbox-a"),
                     pod_hash(pod, "sandbox-b"), pod_hash(pod, "sandbox-c"),
                     pod_hash(pod, "sandbox-d"));
}

std::string cadvisor_exposition(PodSeries series, const NodeCounters& nodes,
                                std::span<const PodCounters> pods) {
  std::string body;
  if (series == PodSeries::none) return body;
  family(body, series, nodes, pods, true);
  family(body, series, nodes, pods, false);
  return body;
}

}  // namespace netscore::sim
