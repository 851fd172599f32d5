#include "collector/kube/cluster_watcher.h"

#include <random>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <spdlog/spdlog.h>

#include "collector/kube/kube_objects.h"
#include "common/clock.h"

namespace netscore::collector {
namespace {

// Bound pods that still run: what kube-scheduler's own pod informer watches.
constexpr const char* kPodSelector =
    "spec.nodeName%21%3D%2Cstatus.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed";

std::string describe(const KubeResponse& r) {
  if (!r.answered()) return "transport error: " + r.transport_error;
  std::string text = "http status " + std::to_string(r.http_status);
  rapidjson::Document doc;
  doc.Parse(r.body.c_str());
  if (!doc.HasParseError() && doc.IsObject() && doc.HasMember("message") &&
      doc["message"].IsString()) {
    text += ": " + std::string(doc["message"].GetString());
  }
  return text;
}

std::string json_of(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return buffer.GetString();
}

}  // namespace

struct ClusterWatcher::Loop {
  Kind kind;
  KubeClient client;
  std::string resource_version;
  std::mt19937_64 random{std::random_device{}()};

  Loop(Kind k, const KubeConfig& kube) : kind(k), client({.kube = kube}) {}
  std::string path() const { return kind == Kind::pods ? "/api/v1/pods" : "/api/v1/nodes"; }
  std::string selector() const {
    return kind == Kind::pods ? std::string("&fieldSelector=") + kPodSelector : "";
  }
};

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
  for (int i = 0; i < 2; ++i) {
    const Kind kind = i == 0 ? Kind::pods : Kind::nodes;
    loops_[i] = std::make_unique<Loop>(kind, options_.kube);
    threads_[i] = std::thread([this, kind] { run(kind); });
  }
}

void ClusterWatcher::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& loop : loops_) {
    if (loop) loop->client.abort();
  }
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

WatcherStatus ClusterWatcher::status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

bool ClusterWatcher::wait(std::chrono::milliseconds delay) {
  std::unique_lock lock(mutex_);
  return !wake_.wait_for(lock, delay, [this] { return stopping_; });
}

void ClusterWatcher::changed() {
  if (options_.on_change) options_.on_change();
}

void ClusterWatcher::set_synced(Kind kind, bool synced, const std::string& error) {
  const int i = kind == Kind::pods ? 0 : 1;
  shm::WatchState before, after;
  {
    std::lock_guard lock(mutex_);
    before = status_.state;
    synced_[i] = synced;
    failing_[i] = !error.empty();
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

bool ClusterWatcher::list(Loop& loop) {
  std::vector<PodFacts> pods;
  std::vector<NodeFacts> nodes;
  std::string token;
  std::string list_rv;
  for (;;) {
    std::string target =
        loop.path() + "?limit=" + std::to_string(options_.page_limit) + loop.selector();
    if (!token.empty()) target += "&continue=" + token;
    const KubeResponse r = loop.client.get(target);
    if (loop.client.aborted()) return false;
    if (!r.ok()) throw std::runtime_error("list " + loop.path() + ": " + describe(r));
    rapidjson::Document doc;
    doc.Parse(r.body.c_str());
    if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("items") ||
        !doc["items"].IsArray()) {
      throw std::runtime_error("list " + loop.path() + ": not a list");
    }
    if (list_rv.empty()) list_rv = resource_version_of(doc);
    for (const auto& item : doc["items"].GetArray()) {
      if (loop.kind == Kind::pods) {
        if (auto pod = parse_pod(item)) pods.push_back(std::move(*pod));
      } else if (auto node = parse_node(item, options_.rules)) {
        nodes.push_back(std::move(*node));
      }
    }
    // FindMember, not operator[]: a list without metadata must not trip RapidJSON's assertion.
    token.clear();
    if (const auto meta = doc.FindMember("metadata");
        meta != doc.MemberEnd() && meta->value.IsObject()) {
      const auto next = meta->value.FindMember("continue");
      if (next != meta->value.MemberEnd() && next->value.IsString())
        token = next->value.GetString();
    }
    if (token.empty()) break;
  }
  if (loop.kind == Kind::pods) {
    state_.replace_pods(pods, wall_now_ms());
  } else {
    state_.replace_nodes(nodes);
  }
  loop.resource_version = list_rv;
  {
    std::lock_guard lock(mutex_);
    ++status_.relists_total;
    if (loop.kind == Kind::pods) status_.resource_version = list_rv;
  }
  return true;
}

void ClusterWatcher::run(Kind kind) {
  Loop& loop = *loops_[kind == Kind::pods ? 0 : 1];
  auto backoff = options_.backoff_initial;
  const auto fail = [&](const std::string& error) {
    set_synced(kind, false, error);
    std::uniform_real_distribution<double> jitter(1.0, 2.0);
    const auto delay = std::chrono::milliseconds(
        static_cast<std::int64_t>(static_cast<double>(backoff.count()) * jitter(loop.random)));
    backoff = std::min(backoff * 2, options_.backoff_max);
    return wait(delay);
  };
  while (!loop.client.aborted()) {
    try {
      if (!list(loop)) return;
    } catch (const std::exception& e) {
      if (!fail(e.what())) return;
      continue;
    }
    set_synced(kind, true, "");
    changed();
    backoff = options_.backoff_initial;
    // Watch until something demands a relist.
    for (;;) {
      std::uniform_int_distribution<std::int64_t> pick(
          options_.watch_timeout_min.count(),
          std::max(options_.watch_timeout_min.count(), options_.watch_timeout_max.count()));
      const std::chrono::milliseconds timeout(pick(loop.random));
      const auto timeout_s = std::max<std::int64_t>(1, timeout.count() / 1000);
      const std::string target = loop.path() + "?watch=1&allowWatchBookmarks=true&timeoutSeconds=" +
                                 std::to_string(timeout_s) +
                                 "&resourceVersion=" + loop.resource_version + loop.selector();
      bool gone = false;
      std::string error_event;  // an ERROR event other than 410
      std::uint64_t events = 0;
      const auto started = std::chrono::steady_clock::now();
      const auto on_line = [&](std::string_view line) {
        rapidjson::Document doc;
        doc.Parse(line.data(), line.size());
        const bool shaped = !doc.HasParseError() && doc.IsObject() && doc.HasMember("type") &&
                            doc["type"].IsString() && doc.HasMember("object") &&
                            doc["object"].IsObject();
        if (!shaped) {
          std::lock_guard lock(mutex_);
          ++status_.malformed_total;
          return true;
        }
        const std::string_view type = doc["type"].GetString();
        const auto& object = doc["object"];
        if (type == "ERROR") {
          gone =
              object.HasMember("code") && object["code"].IsInt() && object["code"].GetInt() == 410;
          if (!gone) error_event = describe({.http_status = 200, .body = json_of(object)});
          return false;
        }
        ++events;
        bool applied = true;
        if (type == "BOOKMARK") {
          // Only the resourceVersion matters.
        } else if (kind == Kind::pods) {
          auto pod = parse_pod(object);
          if (!pod) {
            applied = false;
          } else if (type == "DELETED") {
            state_.remove_pod(pod->uid, wall_now_ms());
          } else {
            state_.upsert_pod(*pod, wall_now_ms());
          }
        } else {
          auto node = parse_node(object, options_.rules);
          if (!node) {
            applied = false;
          } else if (type == "DELETED") {
            state_.remove_node(node->name);
          } else {
            state_.upsert_node(*node);
          }
        }
        std::string rv = resource_version_of(object);
        {
          std::lock_guard lock(mutex_);
          if (!applied) ++status_.malformed_total;
          status_.last_event_wall_ms = wall_now_ms();
          status_.last_event_mono_ns = mono_now_ns();
          if (!rv.empty() && kind == Kind::pods) status_.resource_version = rv;
        }
        if (!rv.empty()) loop.resource_version = std::move(rv);
        if (applied && type != "BOOKMARK") changed();
        return true;
      };
      KubeResponse r;
      try {
        r = loop.client.watch(target, timeout + options_.watch_grace, on_line);
      } catch (const std::exception& e) {
        // An exception must not end the thread (std::terminate): it is one more failed watch.
        if (loop.client.aborted() || !fail("watch " + loop.path() + ": " + e.what())) return;
        break;
      }
      std::string error =
          error_event.empty() ? "" : "watch " + loop.path() + " error event: " + error_event;
      if (loop.client.aborted()) return;
      if (gone || r.http_status == 410) break;  // relist at once
      if (error.empty() && !r.ok()) error = "watch " + loop.path() + ": " + describe(r);
      if (error.empty() && events == 0 &&
          std::chrono::steady_clock::now() - started < std::chrono::seconds(1)) {
        error = "watch " + loop.path() + " closed at once";
      }
      if (!error.empty()) {
        if (!fail(error)) return;
        break;
      }
    }
  }
}

}  // namespace netscore::collector
