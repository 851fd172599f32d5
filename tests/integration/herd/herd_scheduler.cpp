#include "tests/integration/herd/herd_scheduler.h"

#include <cstdint>
#include <cstdio>
#include <map>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "tests/support/scheduler_model.h"
#include "tests/support/http_client.h"

namespace netscore::testing::herd {
namespace {

constexpr std::chrono::seconds kRequestTimeout{5};
constexpr std::int64_t kExtenderWeight = 3;
constexpr std::uint64_t kTieSeed = 7;

std::string pod_json(const std::string& name) {
  char memory[32];
  std::snprintf(memory, sizeof memory, "%lldMi",
                static_cast<long long>(sim::kPodRequest.memory_bytes >> 20));
  return R"({"metadata":{"name":")" + name +
         R"(","namespace":"default"},"spec":{"containers":[{"name":"app",)"
         R"("resources":{"requests":{"cpu":")" +
         std::to_string(sim::kPodRequest.cpu_milli) + R"(m","memory":")" + memory + R"("}}}]}})";
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

BurstResult schedule_burst(const std::string& extender_base, const Cluster& cluster,
                           const ClusterApi& api, unsigned pods) {
  BurstResult result;
  result.placed.assign(cluster.names.size(), 0);
  std::map<std::string, std::size_t> index;
  sim::SchedulerModel scheduler(false, kTieSeed);
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
    // The framework's view of the feasible nodes, in the order the extender answered them.
    std::vector<std::size_t> node;
    std::vector<std::int64_t> extender, total;
    std::vector<unsigned> running;
    for (const auto& host : s.GetArray()) {
      const auto it = index.find(host["Host"].GetString());
      if (it == index.end()) continue;
      node.push_back(it->second);
      extender.push_back(host["Score"].GetInt64());
      running.push_back(cluster.initial_pods[it->second] + result.placed[it->second]);
    }
    if (node.empty()) {
      result.error = std::string(name) + ": no feasible node";
      return result;
    }
    total.assign(node.size(), 0);
    const std::vector<unsigned> no_siblings(node.size(), 0);
    sim::SchedulerModel::add_extender(extender, kExtenderWeight, total);
    scheduler.add_default_plugins(running, no_siblings, total);
    const std::size_t best = node[scheduler.select_host(total)];
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
