#include "collector/kube/cluster_watcher.h"

#include <pthread.h>

#include <algorithm>
#include <exception>
#include <optional>
#include <stdexcept>
#include <vector>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <spdlog/spdlog.h>

#include "collector/kube/kube_objects.h"
#include "common/clock.h"

namespace netscore::collector {

// The parameters client-go's Reflector takes as a ListerWatcher and a Store: where the API serves
// the resource, how an object is decoded, and how a list and the watch events reach the state.
// A BOOKMARK only advances the resourceVersion, for every resource.
template <class Facts>
struct ClusterWatcher::Resource {
  std::size_t slot;  // index of the resource's synced/failing flags
  std::string_view path;
  std::string_view parameters;    // extra list and watch query parameters
  bool reports_resource_version;  // the status' resourceVersion is this resource's
  // nullopt: not an object of this kind (counted as malformed).
  std::optional<Facts> (*decode)(const rapidjson::Value& object, const LabelRules& rules);
  void (*replace)(ClusterState& state, const std::vector<Facts>& listed);
  void (*upsert)(ClusterState& state, const Facts& object);  // ADDED, MODIFIED
  void (*remove)(ClusterState& state, const Facts& object);  // DELETED
};

namespace {

// Bound pods that still run: what kube-scheduler's own pod informer watches.
constexpr ClusterWatcher::Resource<PodFacts> kPods{
    .slot = 0,
    .path = "/api/v1/pods",
    .parameters =
        "&fieldSelector=spec.nodeName%21%3D%2Cstatus.phase%21%3DSucceeded%2Cstatus.phase%21%"
        "3DFailed",
    .reports_resource_version = true,
    .decode = [](const rapidjson::Value& object, const LabelRules&) { return parse_pod(object); },
    .replace = [](ClusterState& state,
                  const std::vector<PodFacts>& pods) { state.replace_pods(pods, wall_now_ms()); },
    .upsert = [](ClusterState& state,
                 const PodFacts& pod) { state.upsert_pod(pod, wall_now_ms()); },
    .remove = [](ClusterState& state,
                 const PodFacts& pod) { state.remove_pod(pod.uid, wall_now_ms()); }};

constexpr ClusterWatcher::Resource<NodeFacts> kNodes{
    .slot = 1,
    .path = "/api/v1/nodes",
    .parameters = "",
    .reports_resource_version = false,
    .decode = [](const rapidjson::Value& object,
                 const LabelRules& rules) { return parse_node(object, rules); },
    .replace = [](ClusterState& state,
                  const std::vector<NodeFacts>& nodes) { state.replace_nodes(nodes); },
    .upsert = [](ClusterState& state, const NodeFacts& node) { state.upsert_node(node); },
    .remove = [](ClusterState& state, const NodeFacts& node) { state.remove_node(node.name); }};

std::string json_of(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return buffer.GetString();
}

}  // namespace

ClusterWatcher::ClusterWatcher(Options options, ClusterState& state)
    : options_(std::move(options)), state_(state) {
  status_.state = shm::WatchState::syncing;
}

ClusterWatcher::~ClusterWatcher() {
  stop();
}

void ClusterWatcher::start() {
  // Logged before the loops start, so this line comes before theirs and a process that had not
  // logged yet sets spdlog up on this thread instead of racing the loops to it.
  spdlog::info("kube watcher state=syncing url={}", options_.kube.url);
  threads_[kPods.slot] = std::jthread([this](std::stop_token stop) { reflect(kPods, stop); });
  threads_[kNodes.slot] = std::jthread([this](std::stop_token stop) { reflect(kNodes, stop); });
  // Named for `top -H`, perf and the benchmark that charges the collector's CPU per pod event.
  pthread_setname_np(threads_[kPods.slot].native_handle(), "ns-watch-pods");
  pthread_setname_np(threads_[kNodes.slot].native_handle(), "ns-watch-nodes");
}

void ClusterWatcher::stop() {
  for (auto& thread : threads_) thread.request_stop();
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

WatcherStatus ClusterWatcher::status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

bool ClusterWatcher::wait(std::chrono::milliseconds delay, std::stop_token stop) {
  std::unique_lock lock(mutex_);
  wake_.wait_for(lock, stop, delay, [] { return false; });
  return !stop.stop_requested();
}

void ClusterWatcher::changed() {
  if (options_.on_change) options_.on_change();
}

void ClusterWatcher::set_synced(std::size_t slot, bool synced, const std::string& error) {
  shm::WatchState before, after;
  {
    std::lock_guard lock(mutex_);
    before = status_.state;
    synced_[slot] = synced;
    failing_[slot] = !error.empty();
    if (!error.empty()) {
      ++status_.errors_total;
      status_.error = error;
    } else if (!failing_[0] && !failing_[1]) {
      status_.error.clear();
    }
    after = failing_[0] || failing_[1] ? shm::WatchState::failing
            : synced_[0] && synced_[1] ? shm::WatchState::synced
                                       : shm::WatchState::syncing;
    status_.state = after;
    if (synced && error.empty()) status_.synced_wall_ms = wall_now_ms();
  }
  if (before != after) {
    if (after == shm::WatchState::failing) {
      spdlog::warn("kube watcher state={} error=\"{}\"",
                   shm::watch_state_name(static_cast<std::uint32_t>(after)), error);
    } else {
      spdlog::info("kube watcher state={} pods={} nodes={}",
                   shm::watch_state_name(static_cast<std::uint32_t>(after)), state_.pod_count(),
                   state_.node_count());
    }
    changed();
  }
}

template <class Facts>
void ClusterWatcher::reflect(const Resource<Facts>& resource, std::stop_token stop) {
  KubeClient client({.kube = options_.kube, .watch_grace = options_.watch_grace, .stop = stop});
  std::mt19937_64 random{std::random_device{}()};
  std::string resource_version;
  auto backoff = options_.backoff_initial;
  const auto fail = [&](const std::string& error) {
    set_synced(resource.slot, false, error);
    std::uniform_real_distribution<double> jitter(1.0, 2.0);
    const auto delay = std::chrono::milliseconds(
        static_cast<std::int64_t>(static_cast<double>(backoff.count()) * jitter(random)));
    backoff = std::min(backoff * 2, options_.backoff_max);
    return wait(delay, stop);
  };
  while (!stop.stop_requested()) {
    try {
      if (!list(resource, client, resource_version)) return;
    } catch (const std::exception& e) {
      if (!fail(e.what())) return;
      continue;
    }
    set_synced(resource.slot, true, "");
    changed();
    backoff = options_.backoff_initial;
    // Watch until something demands a relist.
    for (WatchEnd end = WatchEnd::resume; end == WatchEnd::resume;) {
      std::string error;
      try {
        end = watch(resource, client, resource_version, random, error);
      } catch (const std::exception& e) {
        // An exception must not end the thread (std::terminate): it is one more failed watch.
        end = client.stopped() ? WatchEnd::stopped : WatchEnd::failed;
        error = "watch " + std::string(resource.path) + ": " + e.what();
      }
      if (end == WatchEnd::stopped || (end == WatchEnd::failed && !fail(error))) return;
    }
  }
}

template <class Facts>
bool ClusterWatcher::list(const Resource<Facts>& resource, KubeClient& client,
                          std::string& resource_version) {
  const std::string what = "list " + std::string(resource.path) + ": ";
  std::vector<Facts> listed;
  std::string continue_token;
  std::string list_rv;
  do {
    const HttpResult r =
        client.list(resource.path, resource.parameters, options_.page_limit, continue_token);
    if (client.stopped()) return false;
    if (!r.ok()) throw std::runtime_error(what + describe_kube_failure(r));
    rapidjson::Document doc;
    const std::optional<ListPage> page = parse_list_page(r.body, doc);
    if (!page) throw std::runtime_error(what + "not a list");
    if (list_rv.empty()) list_rv = page->resource_version;
    for (const auto& item : page->items->GetArray()) {
      if (auto object = resource.decode(item, options_.rules)) listed.push_back(std::move(*object));
    }
    continue_token = page->continue_token;
  } while (!continue_token.empty());
  resource.replace(state_, listed);
  resource_version = list_rv;
  std::lock_guard lock(mutex_);
  ++status_.relists_total;
  if (resource.reports_resource_version) status_.resource_version = list_rv;
  return true;
}

template <class Facts>
ClusterWatcher::WatchEnd ClusterWatcher::watch(const Resource<Facts>& resource, KubeClient& client,
                                               std::string& resource_version,
                                               std::mt19937_64& random, std::string& error) {
  std::uniform_int_distribution<std::int64_t> pick(
      options_.watch_timeout_min.count(),
      std::max(options_.watch_timeout_min.count(), options_.watch_timeout_max.count()));
  const std::chrono::milliseconds timeout(pick(random));
  const std::string path(resource.path);
  bool gone = false;
  std::string error_event;  // an ERROR event other than 410
  std::uint64_t events = 0;
  const auto started = std::chrono::steady_clock::now();
  const auto on_line = [&](std::string_view line) {
    rapidjson::Document doc;
    const std::optional<WatchEvent> event = parse_watch_event(line, doc);
    if (!event) {
      std::lock_guard lock(mutex_);
      ++status_.malformed_total;
      return true;
    }
    const rapidjson::Value& object = *event->object;
    if (event->type == "ERROR") {
      gone = error_event_code(object) == 410;
      if (!gone) error_event = describe_kube_failure({.http_status = 200, .body = json_of(object)});
      return false;
    }
    ++events;
    const bool bookmark = event->type == "BOOKMARK";
    bool applied = true;
    if (!bookmark) {
      const std::optional<Facts> decoded = resource.decode(object, options_.rules);
      if (!decoded) {
        applied = false;
      } else if (event->type == "DELETED") {
        resource.remove(state_, *decoded);
      } else {
        resource.upsert(state_, *decoded);
      }
    }
    std::string rv = resource_version_of(object);
    {
      std::lock_guard lock(mutex_);
      if (!applied) ++status_.malformed_total;
      status_.last_event_wall_ms = wall_now_ms();
      status_.last_event_mono_ns = mono_now_ns();
      if (!rv.empty() && resource.reports_resource_version) status_.resource_version = rv;
    }
    if (!rv.empty()) resource_version = std::move(rv);
    if (applied && !bookmark) changed();
    return true;
  };
  const HttpResult r =
      client.watch(resource.path, resource.parameters, resource_version, timeout, on_line);
  if (client.stopped()) return WatchEnd::stopped;
  if (gone || r.http_status == 410) return WatchEnd::relist;
  if (!error_event.empty()) {
    error = "watch " + path + " error event: " + error_event;
  } else if (!r.ok()) {
    error = "watch " + path + ": " + describe_kube_failure(r);
  } else if (events == 0 && std::chrono::steady_clock::now() - started < std::chrono::seconds(1)) {
    error = "watch " + path + " closed at once";
  }
  return error.empty() ? WatchEnd::resume : WatchEnd::failed;
}

}  // namespace netscore::collector
