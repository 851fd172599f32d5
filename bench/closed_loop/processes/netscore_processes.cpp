#include "bench/closed_loop/processes/netscore_processes.h"

#include <cctype>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <rapidjson/document.h>

#include "bench/closed_loop/placement/scaled_environment.h"
#include "bench/prometheus_text/exposition.h"
#include "tests/support/eventually.h"
#include "tests/support/http_client.h"
#include "tests/support/netscore_binaries.h"
#include "tests/support/prometheus_process.h"

namespace netscore::sim {
namespace {

using namespace std::chrono_literals;

constexpr std::chrono::seconds kNetscoreStartup{60};
constexpr std::chrono::seconds kNetscoreStop{10};

std::vector<std::string> as_list(const Environment& env) {
  std::vector<std::string> out;
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

// DIR/POLICY-PROCESS.log, the policy's name ("netscore defaults") made a file name: anything but
// a letter, digit, '-' or '.' becomes '_'. Empty without DIR.
std::string kept_log_path(const std::string& dir, const std::string& policy,
                          const std::string& process) {
  if (dir.empty()) return {};
  std::string name = policy;
  for (char& c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '-' && c != '.') c = '_';
  }
  return dir + "/" + name + "-" + process + ".log";
}

}  // namespace

Environment collector_environment(const Policy& policy, double time_scale,
                                  const std::string& prometheus_url, const Environment& extra) {
  Environment env = scaled_environment(policy.env, time_scale);
  env["NETSCORE_PROMETHEUS_URL"] = prometheus_url;
  env["NETSCORE_INTERFACE"] = "eth0";
  for (const auto& [name, value] : extra) env[name] = value;
  return env;
}

std::string print_rules(const RealtimeBinaries& binaries, const Environment& env) {
  testing::BinaryProcess run(testing::BinaryProcess::Options{
      .path = binaries.collector, .env = as_list(env), .args = {"--print-rules"}});
  const int status = run.wait_exit(kNetscoreStartup);
  const std::string out = run.log();
  if (status != 0)
    throw std::runtime_error(
        fmt::format("netscore-collector --print-rules exited {}:\n{}", status, out));
  return out;
}

NetscoreProcesses::NetscoreProcesses(const RealtimeBinaries& binaries, const Policy& policy,
                                     double time_scale, const std::string& prometheus_url,
                                     const Environment& extra_env, std::size_t nodes) {
  Environment env = collector_environment(policy, time_scale, prometheus_url, extra_env);
  env["NETSCORE_SHM_NAME"] = table_.str();
  collector_.emplace(testing::BinaryProcess::Options{
      .path = binaries.collector,
      .env = as_list(env),
      .log_path = kept_log_path(binaries.log_dir, policy.name, "collector")});
  env["NETSCORE_LISTEN"] = "127.0.0.1:0";
  extender_.emplace(testing::BinaryProcess::Options{
      .path = binaries.extender,
      .env = as_list(env),
      .log_path = kept_log_path(binaries.log_dir, policy.name, "extender")});
  url_ = testing::extender_base_url(*extender_, kNetscoreStartup);
  // Every node measured and the watch synced: the first pod is scored as later ones are.
  const auto ready = [&] {
    if (testing::http_get(url_ + "/readyz", 2s).status != 200) return false;
    rapidjson::Document table;
    table.Parse(testing::http_get(url_ + "/table", 2s).body.c_str());
    return table.IsObject() && table.HasMember("table") && table.HasMember("cluster") &&
           table["table"]["valid_count"].GetUint() == nodes && table["cluster"]["synced"].GetBool();
  };
  if (url_.empty() || !testing::eventually(ready, kNetscoreStartup)) {
    throw std::runtime_error(
        "netscore not ready:\ncollector: " + testing::log_tail(collector_->log_path()) +
        "\nextender: " + testing::log_tail(extender_->log_path()));
  }
}

NetscoreProcesses::Observed NetscoreProcesses::observe() const {
  Observed out;
  out.prioritize_answered =
      prometheus_text::value(prometheus_text::parse(testing::http_get(url_ + "/metrics", 2s).body),
                             "netscore_extender_requests_total",
                             {{"verb", "prioritize"}, {"code", "200"}})
          .value_or(0);
  rapidjson::Document table;
  table.Parse(testing::http_get(url_ + "/table", 2s).body.c_str());
  out.cluster_synced = table.IsObject() && table.HasMember("cluster") &&
                       table["cluster"].HasMember("synced") && table["cluster"]["synced"].GetBool();
  return out;
}

NetscoreProcesses::~NetscoreProcesses() {
  extender_->stop(kNetscoreStop);
  collector_->stop(kNetscoreStop);
}

}  // namespace netscore::sim
