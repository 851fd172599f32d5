#include "tests/support/fake_kube_apiserver.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

namespace netscore::testing {

namespace http = boost::beast::http;
using boost::asio::ip::tcp;
using kube::Resource;

namespace {

std::string percent_decode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size()) {
      unsigned value = 0;
      const auto [end, ec] = std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16);
      if (ec != std::errc{} || end != text.data() + i + 3) {
        out += text[i];
        continue;
      }
      out += static_cast<char>(value);
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  while (!path.empty()) {
    const auto slash = path.find('/');
    if (slash != 0) parts.emplace_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path = path.substr(slash + 1);
  }
  return parts;
}

bool truthy(const std::string& value) {
  std::string lower(value);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return lower != "0" && lower != "false";
}

std::optional<std::uint64_t> parse_u64(const std::string& text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

FakeKubeApiServer::FakeKubeApiServer() : FakeKubeApiServer(Options{}) {}

FakeKubeApiServer::FakeKubeApiServer(Options options)
    : options_(options),
      acceptor_(io_, tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0)) {
  port_ = acceptor_.local_endpoint().port();
  acceptor_thread_ = std::thread([this] { accept_loop(); });
}

FakeKubeApiServer::~FakeKubeApiServer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (auto& socket : sockets_) {
      boost::system::error_code ignored;
      socket->shutdown(tcp::socket::shutdown_both, ignored);
    }
  }
  changed_.notify_all();
  boost::system::error_code ignored;
  tcp::socket poke(io_);
  poke.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port_), ignored);
  acceptor_thread_.join();
  for (auto& t : connections_) t.join();
}

void FakeKubeApiServer::accept_loop() {
  for (;;) {
    auto socket = std::make_shared<tcp::socket>(io_);
    boost::system::error_code ec;
    acceptor_.accept(*socket, ec);
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    if (ec) continue;
    socket->set_option(tcp::no_delay(true), ec);
    sockets_.push_back(socket);
    connections_.emplace_back([this, socket] { serve(socket); });
  }
}

void FakeKubeApiServer::serve(std::shared_ptr<tcp::socket> socket) {
  boost::beast::flat_buffer buffer;
  for (;;) {
    http::request<http::string_body> raw;
    boost::system::error_code ec;
    http::read(*socket, buffer, raw, ec);
    if (ec) break;
    Request request;
    request.method = std::string(raw.method_string());
    const std::string target(raw.target());
    const auto q = target.find('?');
    request.path = target.substr(0, q);
    request.query = q == std::string::npos ? std::string() : target.substr(q + 1);
    for (std::string_view rest = request.query; !rest.empty();) {
      const auto amp = rest.find('&');
      const std::string_view pair = rest.substr(0, amp);
      rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
      const auto eq = pair.find('=');
      request.params[percent_decode(pair.substr(0, eq))] =
          eq == std::string_view::npos ? std::string() : percent_decode(pair.substr(eq + 1));
    }
    request.authorization = std::string(raw[http::field::authorization]);
    request.content_type = std::string(raw[http::field::content_type]);
    request.body = raw.body();
    {
      std::lock_guard lock(mutex_);
      targets_.push_back(request.method + " " + target);
      authorizations_.push_back(request.authorization);
    }
    Reply reply = route(request);
    const auto parts = split_path(request.path);
    const bool is_collection =
        request.method == "GET" &&
        ((parts.size() == 3 && (parts[2] == "pods" || parts[2] == "nodes")) ||
         (parts.size() == 5 && parts[2] == "namespaces" && parts[4] == "pods"));
    if (reply.status == 0 && is_collection && request.has("watch") &&
        truthy(request.param("watch"))) {
      watch(*socket, request, parts[2] == "nodes" ? Resource::nodes : Resource::pods,
            parts.size() == 5 ? parts[3] : std::string());
      break;
    }
    if (reply.status == 0)
      reply = list(request, parts[2] == "nodes" ? Resource::nodes : Resource::pods,
                   parts.size() == 5 ? parts[3] : std::string());
    http::response<http::string_body> answer{static_cast<http::status>(reply.status),
                                             raw.version()};
    answer.set(http::field::content_type, "application/json");
    if (reply.retry_after_s > 0)
      answer.set(http::field::retry_after, std::to_string(reply.retry_after_s));
    answer.keep_alive(raw.keep_alive());
    answer.body() = std::move(reply.body);
    answer.prepare_payload();
    http::write(*socket, answer, ec);
    if (ec || !raw.keep_alive()) break;
  }
  boost::system::error_code ignored;
  socket->shutdown(tcp::socket::shutdown_both, ignored);
}

// status 0: a collection GET the caller serves as a list or a watch.
FakeKubeApiServer::Reply FakeKubeApiServer::route(const Request& request) {
  {
    std::lock_guard lock(mutex_);
    const std::string token = request.authorization.starts_with("Bearer ")
                                  ? request.authorization.substr(7)
                                  : std::string();
    if (!token.empty() && forbidden_tokens_.contains(token)) {
      ++counters_.forbidden;
      return {403,
              kube::status_json(
                  403, "Forbidden",
                  "pods is forbidden: User \"system:serviceaccount:kube-system:netscore\" cannot "
                  "list resource \"pods\" in API group \"\" at the cluster scope")};
    }
    if (!valid_tokens_.empty() && !valid_tokens_.contains(token)) {
      ++counters_.unauthorized;
      return {401, kube::status_json(401, "Unauthorized", "Unauthorized")};
    }
    if (fail_count_ > 0 && (fail_method_.empty() || request.method == fail_method_)) {
      --fail_count_;
      return {
          fail_status_,
          kube::status_json(fail_status_, fail_status_ == 429 ? "TooManyRequests" : "InternalError",
                            "injected failure"),
          fail_retry_after_s_};
    }
  }
  const auto parts = split_path(request.path);
  const bool api_v1 = parts.size() >= 2 && parts[0] == "api" && parts[1] == "v1";
  if (api_v1 && request.method == "GET") {
    if (parts.size() == 3 && (parts[2] == "pods" || parts[2] == "nodes")) return {0, {}};
    if (parts.size() == 5 && parts[2] == "namespaces" && parts[4] == "pods") return {0, {}};
    if (parts.size() == 4 && parts[2] == "nodes") return get(Resource::nodes, {}, parts[3]);
    if (parts.size() == 6 && parts[2] == "namespaces" && parts[4] == "pods") {
      return get(Resource::pods, parts[3], parts[5]);
    }
  }
  if (api_v1 && parts.size() >= 5 && parts[2] == "namespaces" && parts[4] == "pods") {
    if (request.method == "POST" && parts.size() == 5) return create(request, parts[3]);
    if (request.method == "POST" && parts.size() == 7 && parts[6] == "binding") {
      return bind(request, parts[3], parts[5]);
    }
    if (request.method == "PATCH" && parts.size() == 6) return patch(request, parts[3], parts[5]);
    if (request.method == "DELETE" && parts.size() == 6) {
      const auto pod = this->pod(parts[3], parts[5]);
      if (!pod || !delete_pod(parts[3], parts[5])) {
        return {404, kube::status_json(404, "NotFound", "pods \"" + parts[5] + "\" not found")};
      }
      return {200, kube::to_json(*pod, true)};
    }
    return {405,
            kube::status_json(405, "MethodNotAllowed", "the server does not allow this method")};
  }
  return {404,
          kube::status_json(404, "NotFound", "the server could not find the requested resource")};
}

FakeKubeApiServer::Reply FakeKubeApiServer::get(Resource resource, const std::string& ns,
                                                const std::string& name) {
  std::lock_guard lock(mutex_);
  if (resource == Resource::nodes) {
    const auto it = nodes_.find(name);
    if (it != nodes_.end()) return {200, kube::to_json(it->second, true)};
    return {404, kube::status_json(404, "NotFound", "nodes \"" + name + "\" not found")};
  }
  const auto it = pods_.find(ns + "/" + name);
  if (it != pods_.end()) return {200, kube::to_json(it->second, true)};
  return {404, kube::status_json(404, "NotFound", "pods \"" + name + "\" not found")};
}

FakeKubeApiServer::Reply FakeKubeApiServer::list(const Request& request, Resource resource,
                                                 const std::string& ns) {
  if (!request.param("labelSelector").empty()) {
    return {400, kube::status_json(400, "BadRequest",
                                   "labelSelector is not emulated by the fake API server")};
  }
  std::string error;
  const auto selector = kube::parse_field_selector(resource, request.param("fieldSelector"), error);
  if (!selector) return {400, kube::status_json(400, "BadRequest", error)};
  const std::string rv_param = request.param("resourceVersion");
  const std::string token = request.param("continue");
  if (!token.empty() && !rv_param.empty() && rv_param != "0") {
    return {400,
            kube::status_json(400, "BadRequest",
                              "specifying resource version is not allowed when using continue")};
  }
  std::size_t limit = 0;
  if (const auto parsed = parse_u64(request.param("limit")))
    limit = static_cast<std::size_t>(*parsed);
  // resourceVersion=0 is served from the watch cache, which ignores limit.
  if (rv_param == "0") limit = 0;

  std::lock_guard lock(mutex_);
  ++counters_.lists;
  std::string id;
  if (!token.empty()) {
    const auto it = snapshots_.find(token);
    if (it == snapshots_.end() ||
        std::chrono::steady_clock::now() - it->second.created > options_.continue_ttl) {
      if (it != snapshots_.end()) snapshots_.erase(it);
      return {410, kube::status_json(
                       410, "Expired",
                       "The provided continue parameter is too old to display a consistent list "
                       "result. You can start a new list without the continue parameter.")};
    }
    id = token;
  } else {
    Snapshot snapshot;
    snapshot.rv = rv_;
    snapshot.created = std::chrono::steady_clock::now();
    if (resource == Resource::pods) {
      for (const auto& [key, pod] : pods_) {
        if ((ns.empty() || pod.ns == ns) && kube::matches(*selector, pod)) {
          snapshot.items.push_back(kube::to_json(pod, false));
        }
      }
    } else {
      for (const auto& [name, node] : nodes_) {
        if (kube::matches(*selector, node)) snapshot.items.push_back(kube::to_json(node, false));
      }
    }
    id = "c" + std::to_string(++snapshot_counter_) + "-" + std::to_string(rv_);
    snapshots_[id] = std::move(snapshot);
  }
  Snapshot& snapshot = snapshots_[id];
  const std::size_t end =
      limit == 0 ? snapshot.items.size() : std::min(snapshot.items.size(), snapshot.next + limit);
  std::string body =
      std::string(R"({"kind":")") + (resource == Resource::pods ? "PodList" : "NodeList") +
      R"(","apiVersion":"v1","metadata":{"resourceVersion":")" + std::to_string(snapshot.rv) + "\"";
  const bool more = end < snapshot.items.size();
  if (more) body += R"(,"continue":")" + id + "\"";
  body += R"(},"items":[)";
  for (std::size_t i = snapshot.next; i < end; ++i) {
    if (i > snapshot.next) body += ',';
    body += snapshot.items[i];
  }
  body += "]}";
  if (more) {
    snapshot.next = end;
  } else {
    snapshots_.erase(id);
  }
  return {200, std::move(body)};
}

FakeKubeApiServer::Reply FakeKubeApiServer::create(const Request& request, const std::string& ns) {
  std::string error;
  auto pod = kube::pod_from_json(request.body, ns, error);
  if (!pod) return {400, kube::status_json(400, "BadRequest", error)};
  {
    std::lock_guard lock(mutex_);
    if (pods_.contains(pod->ns + "/" + pod->name)) {
      return {409,
              kube::status_json(409, "AlreadyExists", "pods \"" + pod->name + "\" already exists")};
    }
  }
  create_pod(*pod);
  std::lock_guard lock(mutex_);
  return {201, kube::to_json(pods_.at(pod->ns + "/" + pod->name), true)};
}

FakeKubeApiServer::Reply FakeKubeApiServer::bind(const Request& request, const std::string& ns,
                                                 const std::string& name) {
  std::string error;
  const auto binding = kube::binding_from_json(request.body, error);
  if (!binding) return {400, kube::status_json(400, "BadRequest", error)};
  if (binding->name != name) {
    return {400, kube::status_json(400, "BadRequest",
                                   "name in URL does not match name in Binding object")};
  }
  if (binding->target_name.empty() ||
      (!binding->target_kind.empty() && binding->target_kind != "Node")) {
    return {422, kube::status_json(422, "Invalid", "Binding.target: must be a Node with a name")};
  }
  std::lock_guard lock(mutex_);
  const std::string key = ns + "/" + name;
  const auto it = pods_.find(key);
  if (it != pods_.end() && !binding->uid.empty() && binding->uid != it->second.uid) {
    return {409, kube::status_json(409, "Conflict",
                                   "Precondition failed: UID in precondition does not match")};
  }
  const unsigned status = bind_locked(key, binding->target_name, binding->annotations);
  if (status == 404)
    return {404, kube::status_json(404, "NotFound", "pods \"" + name + "\" not found")};
  if (status == 409) {
    return {409, kube::status_json(409, "Conflict",
                                   "pod " + name + " is already assigned to node \"" +
                                       it->second.node + "\" or is being deleted")};
  }
  ++counters_.bindings;
  return {201, kube::status_json(201, "", "")};
}

FakeKubeApiServer::Reply FakeKubeApiServer::patch(const Request& request, const std::string& ns,
                                                  const std::string& name) {
  // The media type without parameters (a client may add "; charset=utf-8").
  const std::string media_type = request.content_type.substr(0, request.content_type.find(';'));
  if (media_type != "application/merge-patch+json") {
    return {415, kube::status_json(415, "UnsupportedMediaType",
                                   "the body of the request was in an unknown format - accepted "
                                   "media types include: application/merge-patch+json")};
  }
  std::string error;
  const auto labels = kube::label_patch_from_json(request.body, error);
  if (!labels) return {400, kube::status_json(400, "BadRequest", error)};
  const auto patched = patch_pod_labels(ns, name, *labels);
  if (!patched) return {404, kube::status_json(404, "NotFound", "pods \"" + name + "\" not found")};
  std::lock_guard lock(mutex_);
  ++counters_.patches;
  return {200, kube::to_json(*patched, true)};
}

}  // namespace netscore::testing
