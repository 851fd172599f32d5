// FakeKubeApiServer: watch streams, fed from the event history.
#include <charconv>

#include <boost/asio/write.hpp>
#include <boost/beast/http.hpp>

#include "tests/support/fake_kube_apiserver.h"

namespace netscore::testing {

namespace http = boost::beast::http;
using boost::asio::ip::tcp;
using kube::Resource;

namespace {

std::string event_json(std::string_view type, const std::string& object) {
  return std::string(R"({"type":")") + std::string(type) + R"(","object":)" + object + "}\n";
}

}  // namespace

// Selector transitions as the watch cache synthesizes them: an object that starts matching is
// ADDED, one that stops matching is DELETED with its previous content at the new RV.
std::optional<std::string> FakeKubeApiServer::event_line(const Stream& stream,
                                                         const Event& event) const {
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

void FakeKubeApiServer::watch(tcp::socket& socket, const Request& request, Resource resource,
                              const std::string& ns) {
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
    answer(400, kube::status_json(400, "BadRequest",
                                  selector ? "labelSelector is not emulated" : error));
    return;
  }
  auto stream = std::make_shared<Stream>();
  stream->resource = resource;
  stream->ns = ns;
  stream->selector = *selector;
  stream->bookmarks = request.has("allowWatchBookmarks") &&
                      request.param("allowWatchBookmarks") != "false" &&
                      request.param("allowWatchBookmarks") != "0";
  auto timeout = options_.default_watch_timeout;
  const std::string timeout_param = request.param("timeoutSeconds");
  std::uint32_t timeout_s = 0;
  const auto [t_end, t_ec] =
      std::from_chars(timeout_param.data(), timeout_param.data() + timeout_param.size(), timeout_s);
  if (!timeout_param.empty() &&
      (t_ec != std::errc{} || t_end != timeout_param.data() + timeout_param.size())) {
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
        if (kube::matches(*selector, node))
          pending += event_json("ADDED", kube::to_json(node, true));
      }
    }
    stream->cursor = rv_;
  } else {
    std::uint64_t from = 0;
    const auto [end, ec] =
        std::from_chars(rv_param.data(), rv_param.data() + rv_param.size(), from);
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
    if (!ec && !data.empty())
      boost::asio::write(socket, http::make_chunk(boost::asio::buffer(data)), ec);
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
      if (stream->bookmarks && options_.bookmark_period.count() > 0)
        wake_at = std::min(wake_at, next_bookmark);
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
      const bool periodic =
          stream->bookmarks && options_.bookmark_period.count() > 0 && now >= next_bookmark;
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
