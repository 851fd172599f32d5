#include "bench/closed_loop/processes/pod_binding_watch.h"

#include <chrono>
#include <cstdint>
#include <mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rapidjson/document.h>
#include <rapidjson/pointer.h>

#include "collector/http/http_session.h"
#include "collector/kube/kube_client.h"

namespace netscore::sim {
namespace {

using namespace std::chrono_literals;

constexpr auto kWatchTimeout = 300s;
// After a failed watch: a pause before the next, so a broken server is not hammered; a stop
// request ends it at once.
constexpr auto kRetryPause = 200ms;

const char* string_at(const rapidjson::Value& root, const char* pointer) {
  const rapidjson::Value* value = rapidjson::Pointer(pointer).Get(root);
  return value != nullptr && value->IsString() ? value->GetString() : nullptr;
}

}  // namespace

PodBindingWatch::PodBindingWatch(KubeConfig kube)
    : kube_(std::move(kube)), thread_([this](const std::stop_token& stop) { run(stop); }) {}

PodBindingWatch::~PodBindingWatch() {
  thread_.request_stop();
  arrived_.notify_all();
}

std::vector<PodBindingWatch::Binding> PodBindingWatch::take(
    std::chrono::steady_clock::time_point until) {
  std::unique_lock lock(mutex_);
  arrived_.wait_until(lock, until, [&] { return !bindings_.empty(); });
  return std::exchange(bindings_, {});
}

std::uint64_t PodBindingWatch::failures() const {
  std::lock_guard lock(mutex_);
  return failures_;
}

std::string PodBindingWatch::last_failure() const {
  std::lock_guard lock(mutex_);
  return last_failure_;
}

void PodBindingWatch::run(const std::stop_token& stop) {
  collector::KubeClient client({.kube = kube_, .user_agent = "netscore-closed-loop", .stop = stop});
  std::string resource_version = "0";
  while (!stop.stop_requested()) {
    const auto result = client.watch(
        "/api/v1/pods", "&fieldSelector=spec.nodeName%21%3D", resource_version, kWatchTimeout,
        [&](std::string_view line) { return on_line(line, resource_version); });
    if (stop.stop_requested() || result.ok()) continue;
    std::unique_lock lock(mutex_);
    ++failures_;
    last_failure_ = collector::describe_kube_failure(result);
    if (result.http_status == 410) resource_version = "0";
    arrived_.wait_for(lock, stop, kRetryPause, [] { return false; });
  }
}

bool PodBindingWatch::on_line(std::string_view line, std::string& resource_version) {
  rapidjson::Document event;
  event.Parse(line.data(), line.size());
  if (event.HasParseError() || !event.IsObject()) return true;
  const char* type = string_at(event, "/type");
  if (type == nullptr) return true;
  if (std::string_view(type) == "ERROR") {
    // 410 Expired: the history no longer reaches our resourceVersion.
    resource_version = "0";
    return false;
  }
  if (const char* version = string_at(event, "/object/metadata/resourceVersion"))
    resource_version = version;
  const char* ns = string_at(event, "/object/metadata/namespace");
  const char* name = string_at(event, "/object/metadata/name");
  const char* node = string_at(event, "/object/spec/nodeName");
  const std::string_view kind = type;
  if ((kind != "ADDED" && kind != "MODIFIED") || ns == nullptr || name == nullptr ||
      node == nullptr || *node == '\0')
    return true;
  {
    std::lock_guard lock(mutex_);
    bindings_.push_back({.key = std::string(ns) + "/" + name, .node = node});
  }
  arrived_.notify_all();
  return true;
}

}  // namespace netscore::sim
