#include "tests/integration/herd/herd_scheduler.h"

#include <cstdio>
#include <map>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "tests/support/http_client.h"

namespace netscore::testing::herd {
namespace {

constexpr std::chrono::seconds kRequestTimeout{5};

std::string pod_json(const std::string& name) {
  char memory[32];
  std::snprintf(memory, sizeof memory, "%lldMi",
                static_cast<long long>(kPodRequest.memory_bytes >> 20));
  return R"({"metadata":{"name":")" + name +
         R"(","namespace":"default"},"spec":{"containers":[{"name":"app",)"
         R"("resources":{"requests":{"cpu":")" +
         std::to_string(kPodRequest.cpu_milli) + R"(m","memory":")" + memory + R"("}}}]}})";
}

std::string names_json(const std::vector<std::string>& names) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartArray();
  for (const auto& n : names) w.String(n);
  w.EndArray();
  return buffer.GetString();
}

}  // namespace

std::int64_t framework_score(std::int64_t extender_score, unsigned pods_on_node) {
  constexpr std::int64_t kWeight = 1;
  constexpr std::int64_t kMaxNodeScore = 100;
  constexpr std::int64_t kMaxExtenderPriority = 10;
  return extender_score * kWeight * (kMaxNodeScore / kMaxExtenderPriority) +
         least_allocated(pods_on_node);
}

BurstResult schedule_burst(const std::string& extender_base, const Cluster& cluster,
                           const ClusterApi& api, unsigned pods) {
  BurstResult result;
  result.placed.assign(cluster.names.size(), 0);
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < cluster.names.size(); ++i) index[cluster.names[i]] = i;
  for (unsigned p = 0; p < pods; ++p) {
    char name[16];
    std::snprintf(name, sizeof name, "herd-%03u", p);
    api.create(name);
    const std::string pod = pod_json(name);

    const HttpReply filtered = http_post(
        extender_base + "/filter",
        R"({"Pod":)" + pod + R"(,"NodeNames":)" + names_json(cluster.names) + "}", kRequestTimeout);
    rapidjson::Document f;
    f.Parse(filtered.body.c_str());
    if (filtered.status != 200 || !f.IsObject() || !f.HasMember("NodeNames") ||
        !f["NodeNames"].IsArray()) {
      result.error = std::string(name) + ": filter answered " + std::to_string(filtered.status) +
                     " " + filtered.body;
      return result;
    }
    std::vector<std::string> feasible;
    for (const auto& n : f["NodeNames"].GetArray())
      feasible.emplace_back(n.GetString(), n.GetStringLength());

    const HttpReply prioritized = http_post(
        extender_base + "/prioritize",
        R"({"Pod":)" + pod + R"(,"NodeNames":)" + names_json(feasible) + "}", kRequestTimeout);
    rapidjson::Document s;
    s.Parse(prioritized.body.c_str());
    if (prioritized.status != 200 || !s.IsArray() || s.Size() != feasible.size()) {
      result.error = std::string(name) + ": prioritize answered " +
                     std::to_string(prioritized.status) + " " + prioritized.body;
      return result;
    }
    result.prioritize.push_back(prioritized.body);
    std::size_t best = cluster.names.size();
    std::int64_t best_total = -1;
    for (const auto& host : s.GetArray()) {
      const auto it = index.find(host["Host"].GetString());
      if (it == index.end()) continue;
      const std::size_t i = it->second;
      const std::int64_t total =
          framework_score(host["Score"].GetInt64(), cluster.initial_pods[i] + result.placed[i]);
      // Strictly greater: on a tie the node earlier in the (name-sorted) list stays.
      if (total > best_total || (total == best_total && i < best)) {
        best = i;
        best_total = total;
      }
    }
    if (best == cluster.names.size()) {
      result.error = std::string(name) + ": no feasible node";
      return result;
    }
    if (!api.bind(name, cluster.names[best])) {
      result.error = std::string(name) + ": binding to " + cluster.names[best] + " failed";
      return result;
    }
    ++result.placed[best];
    result.order.push_back(best);
    if (!api.wait_visible(cluster.names[best], result.placed[best])) {
      result.error =
          std::string(name) + ": the binding to " + cluster.names[best] + " never showed in /table";
      return result;
    }
  }
  return result;
}

}  // namespace netscore::testing::herd
