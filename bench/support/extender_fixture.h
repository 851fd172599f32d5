#pragma once

#include <string>
#include <vector>

#include "common/table/score_table_writer.h"

// Request bodies and a score table shared by the extender's benchmarks and the soak.
namespace netscore::bench {

inline std::string node_name(std::size_t i) {
  return "ip-10-0-" + std::to_string(i / 250) + "-" + std::to_string(i % 250) + ".ec2.internal";
}

inline const std::string kPod =
    R"({"metadata":{"name":"web-7d9f8-x2kqp","generateName":"web-7d9f8-","namespace":"default","uid":"6b1f1c52-2c1e-4c8e-9a57-0d3a4f1e9b11","resourceVersion":"123456","creationTimestamp":"2026-07-01T10:00:00Z","labels":{"app":"web","pod-template-hash":"7d9f8"},"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"annotations\":{},\"name\":\"web\",\"namespace\":\"default\"}}\n"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d9f8","uid":"1f0e","controller":true,"blockOwnerDeletion":true}]},"spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{"requests":{"cpu":"100m","memory":"64Mi"}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default","serviceAccount":"default","securityContext":{},"schedulerName":"default-scheduler","tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},"status":{"phase":"Pending","qosClass":"Burstable"}})";

inline std::vector<std::string> node_names(std::size_t n) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < n; ++i) names.push_back(node_name(i));
  return names;
}

// nodeCacheCapable: true — what the scheduler sends with the recommended configuration.
inline std::string names_body(const std::vector<std::string>& names) {
  std::string body = R"({"Pod":)" + kPod + R"(,"Nodes":null,"NodeNames":[)";
  for (std::size_t i = 0; i < names.size(); ++i) body += (i ? ",\"" : "\"") + names[i] + "\"";
  return body + "]}";
}

inline std::string names_body(std::size_t n) {
  return names_body(node_names(n));
}

// nodeCacheCapable: false — full Node objects (abbreviated real kubelet output, ~1.5 KB each).
inline std::string nodes_body(const std::vector<std::string>& names) {
  std::string body = R"({"Pod":)" + kPod + R"(,"Nodes":{"metadata":{},"items":[)";
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    if (i) body += ",";
    body +=
        R"({"metadata":{"name":")" + name + R"(","uid":"0a9c-)" + std::to_string(i) +
        R"(","resourceVersion":"98765","creationTimestamp":"2026-06-01T08:00:00Z","labels":{"beta.kubernetes.io/arch":"amd64","beta.kubernetes.io/os":"linux","kubernetes.io/arch":"amd64","kubernetes.io/hostname":")" +
        name +
        R"(","kubernetes.io/os":"linux","node.kubernetes.io/instance-type":"m5.2xlarge","topology.kubernetes.io/region":"eu-west-1","topology.kubernetes.io/zone":"eu-west-1a"},"annotations":{"node.alpha.kubernetes.io/ttl":"0","volumes.kubernetes.io/controller-managed-attach-detach":"true"}},"spec":{"podCIDR":"10.244.1.0/24","podCIDRs":["10.244.1.0/24"],"providerID":"aws:///eu-west-1a/i-0abc"},"status":{"capacity":{"cpu":"8","ephemeral-storage":"101430960Ki","hugepages-1Gi":"0","hugepages-2Mi":"0","memory":"32863544Ki","pods":"110"},"allocatable":{"cpu":"7800m","ephemeral-storage":"93478772582","hugepages-1Gi":"0","hugepages-2Mi":"0","memory":"32261144Ki","pods":"110"},"conditions":[{"type":"MemoryPressure","status":"False","lastHeartbeatTime":"2026-07-01T09:59:40Z","lastTransitionTime":"2026-06-01T08:01:00Z","reason":"KubeletHasSufficientMemory","message":"kubelet has sufficient memory available"},{"type":"Ready","status":"True","lastHeartbeatTime":"2026-07-01T09:59:40Z","lastTransitionTime":"2026-06-01T08:01:00Z","reason":"KubeletReady","message":"kubelet is posting ready status"}],"addresses":[{"type":"InternalIP","address":"10.0.0.11"},{"type":"Hostname","address":")" +
        name +
        R"("}],"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},"nodeInfo":{"machineID":"ec2a","systemUUID":"ec2a","bootID":"b1","kernelVersion":"6.8.0-45-generic","osImage":"Ubuntu 24.04 LTS","containerRuntimeVersion":"containerd://1.7.22","kubeletVersion":"v1.33.2","kubeProxyVersion":"","operatingSystem":"linux","architecture":"amd64"}}})";
  }
  return body + R"(]},"NodeNames":null})";
}

// Valid, scored entries for the given nodes, with spread-out traffic.
inline std::vector<TableEntry> scored_entries(const std::vector<std::string>& names) {
  std::vector<TableEntry> entries;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double raw = static_cast<double>((i * 7919) % 100000) * 1000.0;
    entries.push_back({{.raw = raw,
                        .raw_score = static_cast<std::int64_t>(raw),
                        .node_score = static_cast<std::int64_t>(i % 101),
                        .sample_ms = 1,
                        .corrected_raw_score = static_cast<std::int64_t>(raw),
                        .corrected_node_score = static_cast<std::int64_t>(i % 101),
                        .flags = shm::kEntryHasSeries | shm::kEntryValid},
                       names[i]});
  }
  return entries;
}

// Every node of the largest request.
inline void publish_table(ScoreTableWriter& writer, std::size_t n) {
  writer.publish(scored_entries(node_names(n)), 1);
}

}  // namespace netscore::bench
