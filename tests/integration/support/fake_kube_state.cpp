// FakeKubeApiServer: the object store, its event history and the watch streams fed from it.
#include <charconv>
#include <ctime>

#include <boost/asio/write.hpp>
#include <boost/beast/http.hpp>

#include "tests/integration/support/fake_kube_apiserver.h"

namespace netscore::testing {

namespace http = boost::beast::http;
using boost::asio::ip::tcp;
using kube::Resource;

struct FakeKubeApiServer::Stream {
  Resource resource = Resource::pods;
  std::string ns;
  std::vector<kube::FieldTerm> selector;
  bool bookmarks = false;
  std::uint64_t cursor = 0;  // RV of the latest event considered
  bool stalled = false;
  bool close = false;
  bool cut = false;
  bool bookmark = false;
  std::deque<std::string> raw;
};

namespace {

std::int64_t now_s() { return static_cast<std::int64_t>(std::time(nullptr)); }

std::string event_json(std::string_view type, const std::string& object) {
  return std::string(R"({"type":")") + std::string(type) + R"(","object":)" + object + "}\n";
}

bool terminal(const kube::Pod& pod) { return pod.phase == "Succeeded" || pod.phase == "Failed"; }

}  // namespace

FakeKubeApiServer::Event FakeKubeApiServer::pod_event(std::string type, std::optional<kube::Pod> old_pod,
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
  kube::Node node{.name = name, .uid = "node-uid-" + std::to_string(++uid_counter_), .labels = std::move(labels),
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

unsigned FakeKubeApiServer::bind_pod(const std::string& ns, const std::string& name, const std::string& node) {
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

bool FakeKubeApiServer::set_pod_phase(const std::string& ns, const std::string& name, const std::string& phase) {
  std::lock_guard lock(mutex_);
  const auto it = pods_.find(ns + "/" + name);
  if (it == pods_.end()) return false;
  kube::Pod changed = it->second;
  changed.phase = phase;
  record(pod_event("MODIFIED", it->second, changed));
  it->second = *history_.back().new_pod;
  return true;
}

std::optional<kube::Pod> FakeKubeApiServer::pod(const std::string& ns, const std::string& name) const {
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

void FakeKubeApiServer::fail_next_requests(unsigned status, unsigned count, unsigned retry_after_s) {
  std::lock_guard lock(mutex_);
  fail_status_ = status;
  fail_count_ = count;
  fail_retry_after_s_ = retry_after_s;
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

// Selector transitions as the watch cache synthesizes them: an object that starts matching is
// ADDED, one that stops matching is DELETED with its previous content at the new RV.
std::optional<std::string> FakeKubeApiServer::event_line(const Stream& stream, const Event& event) const {
  if (event.resource != stream.resource) return std::nullopt;
  if (stream.resource == Resource::nodes) {
    const bool was = event.old_node && kube::matches(stream.selector, *event.old_node);
    const bool is = event.new_node && kube::matches(stream.selector, *event.new_node);
    if (is) return event_json(was ? event.type : "ADDED", kube::to_json(*event.new_node, true));
    if (!was) return std::nullopt;
    kube::Node last = *event.old_node;
    last.resource_version = event.rv;
    return event_json("DELETED", kube::to_json(last, true));
  }
  const auto in = [&](const std::optional<kube::Pod>& p) {
    return p && (stream.ns.empty() || p->ns == stream.ns) && kube::matches(stream.selector, *p);
  };
  const bool was = in(event.old_pod);
  const bool is = in(event.new_pod);
  if (is) return event_json(was ? event.type : "ADDED", kube::to_json(*event.new_pod, true));
  if (!was) return std::nullopt;
  kube::Pod last = *event.old_pod;
  last.resource_version = event.rv;
  return event_json("DELETED", kube::to_json(last, true));
}

void FakeKubeApiServer::watch(tcp::socket& socket, const Request& request, Resource resource, const std::string& ns) {
  std::string error;
  const auto selector = kube::parse_field_selector(resource, request.param("fieldSelector"), error);
  const auto answer = [&](unsigned status, const std::string& body) {
    http::response<http::string_body> res{static_cast<http::status>(status), 11};
    res.set(http::field::content_type, "application/json");
    res.keep_alive(false);
    res.body() = body;
    res.prepare_payload();
    boost::system::error_code ignored;
    http::write(socket, res, ignored);
  };
  if (!request.param("labelSelector").empty() || !selector) {
    answer(400, kube::status_json(400, "BadRequest", selector ? "labelSelector is not emulated" : error));
    return;
  }
  auto stream = std::make_shared<Stream>();
  stream->resource = resource;
  stream->ns = ns;
  stream->selector = *selector;
  stream->bookmarks = request.has("allowWatchBookmarks") && request.param("allowWatchBookmarks") != "false" &&
                      request.param("allowWatchBookmarks") != "0";
  auto timeout = options_.default_watch_timeout;
  const std::string timeout_param = request.param("timeoutSeconds");
  std::uint32_t timeout_s = 0;
  const auto [t_end, t_ec] =
      std::from_chars(timeout_param.data(), timeout_param.data() + timeout_param.size(), timeout_s);
  if (!timeout_param.empty() && (t_ec != std::errc{} || t_end != timeout_param.data() + timeout_param.size())) {
    answer(400, kube::status_json(400, "BadRequest", "invalid timeoutSeconds: " + timeout_param));
    return;
  }
  if (timeout_s > 0) timeout = std::chrono::seconds(timeout_s);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const std::string rv_param = request.param("resourceVersion");
  const std::string expired_message = "too old resource version: " + rv_param;

  std::unique_lock lock(mutex_);
  std::string pending;
  if (rv_param.empty() || rv_param == "0") {
    // 1.26 serves these from the watch cache: the current state as ADDED events first.
    if (resource == Resource::pods) {
      for (const auto& [key, pod] : pods_) {
        if ((ns.empty() || pod.ns == ns) && kube::matches(*selector, pod)) {
          pending += event_json("ADDED", kube::to_json(pod, true));
        }
      }
    } else {
      for (const auto& [name, node] : nodes_) {
        if (kube::matches(*selector, node)) pending += event_json("ADDED", kube::to_json(node, true));
      }
    }
    stream->cursor = rv_;
  } else {
    std::uint64_t from = 0;
    const auto [end, ec] = std::from_chars(rv_param.data(), rv_param.data() + rv_param.size(), from);
    if (ec != std::errc{} || end != rv_param.data() + rv_param.size()) {
      lock.unlock();
      answer(400, kube::status_json(400, "BadRequest", "invalid resource version: " + rv_param));
      return;
    }
    if (from < oldest_resumable_rv_) {
      const bool as_http = options_.expired_watch_as_http_410;
      lock.unlock();
      const std::string status = kube::status_json(410, "Expired", expired_message);
      if (as_http) {
        answer(410, status);
        return;
      }
      pending = event_json("ERROR", status);
      lock.lock();
      stream->close = true;
    }
    stream->cursor = from;
  }
  ++counters_.watches;
  streams_.push_back(stream);
  lock.unlock();

  http::response<http::empty_body> head{http::status::ok, 11};
  head.set(http::field::content_type, "application/json");
  head.keep_alive(false);
  head.chunked(true);
  http::response_serializer<http::empty_body> serializer{head};
  boost::system::error_code ec;
  http::write_header(socket, serializer, ec);
  const auto send = [&](const std::string& data) {
    if (!ec && !data.empty()) boost::asio::write(socket, http::make_chunk(boost::asio::buffer(data)), ec);
    return !ec;
  };
  bool clean_end = true;
  auto next_bookmark = std::chrono::steady_clock::now() + options_.bookmark_period;
  lock.lock();
  while (!ec) {
    if (pending.empty()) {
      const auto ready = [&] {
        if (stopping_ || stream->cut) return true;
        if (stream->stalled) return false;
        return stream->close || stream->bookmark || !stream->raw.empty() || stream->cursor < rv_;
      };
      auto wake_at = deadline;
      if (stream->bookmarks && options_.bookmark_period.count() > 0) wake_at = std::min(wake_at, next_bookmark);
      changed_.wait_until(lock, wake_at, ready);
      // A stalled stream ignores its deadline too: only the client giving up ends it.
      if (stream->stalled) changed_.wait(lock, [&] { return stopping_ || stream->cut; });
      if (stopping_) break;
      if (stream->cut) {
        clean_end = false;
        break;
      }
      while (stream->cursor < rv_) {
        if (history_.empty() || stream->cursor + 1 < history_.front().rv) {
          // Fell behind the history while the client was slow: what a real cache does too.
          pending += event_json("ERROR", kube::status_json(410, "Expired", expired_message));
          stream->close = true;
          break;
        }
        const Event& e = history_[stream->cursor + 1 - history_.front().rv];
        if (auto line = event_line(*stream, e)) pending += *line;
        stream->cursor = e.rv;
      }
      for (; !stream->raw.empty(); stream->raw.pop_front()) pending += stream->raw.front();
      const auto now = std::chrono::steady_clock::now();
      const bool periodic = stream->bookmarks && options_.bookmark_period.count() > 0 && now >= next_bookmark;
      const bool at_deadline = now >= deadline;
      if (!stream->close && (stream->bookmark || periodic || (at_deadline && stream->bookmarks))) {
        pending += event_json("BOOKMARK", kube::bookmark_object(resource, stream->cursor));
        next_bookmark = now + options_.bookmark_period;
      }
      stream->bookmark = false;
      if (pending.empty() && (stream->close || at_deadline)) break;
    }
    const bool split = split_writes_;
    const bool last = stream->close || std::chrono::steady_clock::now() >= deadline;
    std::string out = std::move(pending);
    pending.clear();
    lock.unlock();
    if (split && out.size() > 1) {
      send(out.substr(0, out.size() / 2));
      send(out.substr(out.size() / 2));
    } else {
      send(out);
    }
    lock.lock();
    if (last) break;
  }
  streams_.remove(stream);
  const bool stopping = stopping_;
  lock.unlock();
  if (!clean_end) {
    send(R"({"type":"MODIFIED","object":{"kind":"Pod","apiVe)");
    socket.shutdown(tcp::socket::shutdown_both, ec);
    return;
  }
  if (!stopping && !ec) boost::asio::write(socket, http::make_chunk_last(), ec);
}

}  // namespace netscore::testing
