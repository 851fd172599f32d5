// FakeKubeApiServer: the object store, its event history and the test knobs.
#include <charconv>
#include <ctime>
#include <utility>

#include <boost/asio/write.hpp>
#include <boost/beast/http.hpp>

#include "tests/support/fake_kube_apiserver.h"

namespace netscore::testing {

namespace http = boost::beast::http;
using boost::asio::ip::tcp;
using kube::Resource;

namespace {

std::int64_t now_s() {
  return static_cast<std::int64_t>(std::time(nullptr));
}

bool terminal(const kube::Pod& pod) {
  return pod.phase == "Succeeded" || pod.phase == "Failed";
}

}  // namespace

FakeKubeApiServer::Event FakeKubeApiServer::pod_event(std::string type,
                                                      std::optional<kube::Pod> old_pod,
                                                      std::optional<kube::Pod> new_pod) {
  Event e;
  e.type = std::move(type);
  e.old_pod = std::move(old_pod);
  e.new_pod = std::move(new_pod);
  return e;
}

std::uint64_t FakeKubeApiServer::record(Event event) {
  event.rv = ++rv_;
  if (event.new_pod) event.new_pod->resource_version = event.rv;
  if (event.new_node) event.new_node->resource_version = event.rv;
  history_.push_back(std::move(event));
  while (history_.size() > options_.history) {
    oldest_resumable_rv_ = history_.front().rv;
    history_.pop_front();
  }
  changed_.notify_all();
  return rv_;
}

void FakeKubeApiServer::put_node(const std::string& name, kube::StringMap labels) {
  std::lock_guard lock(mutex_);
  const auto it = nodes_.find(name);
  Event e;
  e.resource = Resource::nodes;
  e.type = it == nodes_.end() ? "ADDED" : "MODIFIED";
  kube::Node node{.name = name,
                  .uid = "node-uid-" + std::to_string(++uid_counter_),
                  .labels = std::move(labels),
                  .created_s = now_s()};
  if (it != nodes_.end()) {
    e.old_node = it->second;
    node.uid = it->second.uid;
    node.created_s = it->second.created_s;
  }
  e.new_node = node;
  record(std::move(e));
  nodes_[name] = *history_.back().new_node;
}

void FakeKubeApiServer::delete_node(const std::string& name) {
  std::lock_guard lock(mutex_);
  const auto it = nodes_.find(name);
  if (it == nodes_.end()) return;
  Event e;
  e.resource = Resource::nodes;
  e.type = "DELETED";
  e.old_node = it->second;
  record(std::move(e));
  nodes_.erase(it);
}

std::string FakeKubeApiServer::create_pod(kube::Pod pod) {
  std::lock_guard lock(mutex_);
  pod.uid = "pod-uid-" + std::to_string(++uid_counter_);
  if (pod.created_s == 0) pod.created_s = now_s();
  if (!pod.node.empty() && !pod.scheduled_s) pod.scheduled_s = pod.created_s;
  const std::string key = pod.ns + "/" + pod.name;
  record(pod_event("ADDED", std::nullopt, pod));
  pods_[key] = *history_.back().new_pod;
  return pod.uid;
}

unsigned FakeKubeApiServer::bind_pod(const std::string& ns, const std::string& name,
                                     const std::string& node) {
  std::lock_guard lock(mutex_);
  const unsigned status = bind_locked(ns + "/" + name, node, {});
  if (status == 201) ++counters_.bindings;
  return status;
}

unsigned FakeKubeApiServer::bind_locked(const std::string& key, const std::string& node,
                                        const kube::StringMap& annotations) {
  const auto it = pods_.find(key);
  if (it == pods_.end()) return 404;
  if (!it->second.node.empty() || it->second.deleting_s) return 409;
  kube::Pod bound = it->second;
  bound.node = node;
  for (const auto& [k, v] : annotations) bound.annotations[k] = v;
  if (!bound.scheduled_s) bound.scheduled_s = now_s();
  record(pod_event("MODIFIED", it->second, bound));
  it->second = *history_.back().new_pod;
  return 201;
}

bool FakeKubeApiServer::delete_pod(const std::string& ns, const std::string& name) {
  std::lock_guard lock(mutex_);
  return delete_pod_locked(ns + "/" + name);
}

bool FakeKubeApiServer::delete_pod_locked(const std::string& key) {
  const auto it = pods_.find(key);
  if (it == pods_.end()) return false;
  if (!it->second.node.empty() && !terminal(it->second) && !it->second.deleting_s) {
    kube::Pod deleting = it->second;
    deleting.deleting_s = now_s();
    record(pod_event("MODIFIED", it->second, deleting));
    it->second = *history_.back().new_pod;
  }
  record(pod_event("DELETED", it->second, std::nullopt));
  pods_.erase(it);
  return true;
}

std::optional<kube::Pod> FakeKubeApiServer::patch_pod_labels(const std::string& ns,
                                                             const std::string& name,
                                                             const kube::LabelPatch& patch) {
  std::lock_guard lock(mutex_);
  const auto it = pods_.find(ns + "/" + name);
  if (it == pods_.end()) return std::nullopt;
  kube::Pod patched = it->second;
  for (const auto& [key, value] : patch) {
    if (value) {
      patched.labels[key] = *value;
    } else {
      patched.labels.erase(key);
    }
  }
  // As the API server: a patch that changes nothing writes nothing (no new resourceVersion, no
  // event).
  if (patched.labels == it->second.labels) return it->second;
  record(pod_event("MODIFIED", it->second, patched));
  it->second = *history_.back().new_pod;
  return it->second;
}

bool FakeKubeApiServer::set_pod_phase(const std::string& ns, const std::string& name,
                                      const std::string& phase) {
  std::lock_guard lock(mutex_);
  const auto it = pods_.find(ns + "/" + name);
  if (it == pods_.end()) return false;
  kube::Pod changed = it->second;
  changed.phase = phase;
  record(pod_event("MODIFIED", it->second, changed));
  it->second = *history_.back().new_pod;
  return true;
}

std::optional<kube::Pod> FakeKubeApiServer::pod(const std::string& ns,
                                                const std::string& name) const {
  std::lock_guard lock(mutex_);
  const auto it = pods_.find(ns + "/" + name);
  if (it == pods_.end()) return std::nullopt;
  return it->second;
}

std::uint64_t FakeKubeApiServer::resource_version() const {
  std::lock_guard lock(mutex_);
  return rv_;
}

std::map<std::string, unsigned> FakeKubeApiServer::pods_per_node() const {
  std::lock_guard lock(mutex_);
  std::map<std::string, unsigned> counts;
  for (const auto& [key, pod] : pods_) {
    if (!pod.node.empty() && !terminal(pod)) ++counts[pod.node];
  }
  return counts;
}

void FakeKubeApiServer::set_tokens(std::set<std::string> valid, std::set<std::string> forbidden) {
  std::lock_guard lock(mutex_);
  valid_tokens_ = std::move(valid);
  forbidden_tokens_ = std::move(forbidden);
}

void FakeKubeApiServer::fail_next_requests(unsigned status, unsigned count, unsigned retry_after_s,
                                           std::string method) {
  std::lock_guard lock(mutex_);
  fail_status_ = status;
  fail_count_ = count;
  fail_retry_after_s_ = retry_after_s;
  fail_method_ = std::move(method);
}

void FakeKubeApiServer::compact() {
  std::lock_guard lock(mutex_);
  history_.clear();
  oldest_resumable_rv_ = rv_;
}

void FakeKubeApiServer::expire_continue_tokens() {
  std::lock_guard lock(mutex_);
  snapshots_.clear();
}

void FakeKubeApiServer::stall_watches() {
  std::lock_guard lock(mutex_);
  for (auto& s : streams_) s->stalled = true;
}

void FakeKubeApiServer::close_watches() {
  std::lock_guard lock(mutex_);
  for (auto& s : streams_) s->close = true;
  changed_.notify_all();
}

void FakeKubeApiServer::cut_watches() {
  std::lock_guard lock(mutex_);
  for (auto& s : streams_) s->cut = true;
  changed_.notify_all();
}

void FakeKubeApiServer::split_event_writes(bool on) {
  std::lock_guard lock(mutex_);
  split_writes_ = on;
}

void FakeKubeApiServer::bookmark_now() {
  std::lock_guard lock(mutex_);
  for (auto& s : streams_) s->bookmark = s->bookmarks;
  changed_.notify_all();
}

void FakeKubeApiServer::inject_watch_line(Resource resource, std::string line) {
  std::lock_guard lock(mutex_);
  for (auto& s : streams_) {
    if (s->resource == resource) s->raw.push_back(line + "\n");
  }
  changed_.notify_all();
}

FakeKubeApiServer::Counters FakeKubeApiServer::counters() const {
  std::lock_guard lock(mutex_);
  return counters_;
}

std::size_t FakeKubeApiServer::open_watches() const {
  std::lock_guard lock(mutex_);
  return streams_.size();
}

std::vector<std::string> FakeKubeApiServer::request_targets() const {
  std::lock_guard lock(mutex_);
  return targets_;
}

std::vector<std::string> FakeKubeApiServer::authorizations() const {
  std::lock_guard lock(mutex_);
  return authorizations_;
}

}  // namespace netscore::testing
