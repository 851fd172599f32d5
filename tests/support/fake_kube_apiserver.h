#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/ip/tcp.hpp>

#include "tests/support/fake_kube_objects.h"

// An in-process Kubernetes API server for pods and nodes on 127.0.0.1 (random port, plain HTTP,
// JSON), following the list/watch conventions of a 1.26 kube-apiserver:
//  - one global resourceVersion counter bumped by every write; lists report it as a string;
//  - GET /api/v1/pods, /api/v1/namespaces/{ns}/pods, /api/v1/nodes: lists (items without
//    kind/apiVersion, `items: []` when empty) with limit/continue over a snapshot taken by the
//    first page (opaque tokens; an unknown or expired token -> 410 Expired; resourceVersion
//    together with continue -> 400), and single GETs;
//  - ?watch=...: chunked stream of newline-terminated events strictly after resourceVersion, in
//    order; an RV older than the bounded event history -> 200 + one ERROR event (410 Expired),
//    or an HTTP 410 with `expired_watch_as_http_410`; resourceVersion unset or "0" first sends
//    the current state as ADDED; BOOKMARKs with allowWatchBookmarks=true (periodically, on
//    bookmark_now() and at the deadline); a clean end at timeoutSeconds (default configurable);
//    spec.nodeName selector transitions synthesized as ADDED/DELETED;
//  - POST .../namespaces/{ns}/pods (create), POST .../pods/{name}/binding (a v1 Binding: uid
//    precondition, 409 when bound or deleting, sets nodeName, merges annotations, PodScheduled
//    lastTransitionTime, 201 Status), DELETE .../pods/{name} (bound running pods: MODIFIED with
//    deletionTimestamp then DELETED, as a kubelet that stops them at once; others DELETED);
//  - PATCH .../pods/{name} with application/merge-patch+json: metadata.labels merged (null removes
//    a label), one MODIFIED event (none when nothing changes), 200 with the pod; 404 for a missing
//    pod, 415 for another content type, 400 for a body that is not a JSON object or a label value
//    neither a string nor null;
//  - bearer tokens: a replaceable set of valid tokens (401 otherwise) and forbidden ones (403);
//  - faults: fail the next requests with a status (+ Retry-After), stall or close or cut open
//    watches mid-event, split each event across two writes, inject raw (malformed) lines,
//    compact the history, expire continue tokens.
// It does NOT emulate: label selectors (400), field selectors beyond spec.nodeName, status.phase,
// metadata.name and metadata.namespace, resourceVersionMatch, protobuf/Table output, HTTP/2,
// TLS, websockets, the watch cache vs etcd split (every list is a consistent read of the current
// state whatever resourceVersion says), priority and fairness, RBAC beyond the token sets,
// namespaces as objects, full PodSpec/NodeStatus, PUT, JSON and strategic-merge patches, merge
// patches of any field but metadata.labels (ignored), patches' resourceVersion preconditions,
// dry runs, node deletion over HTTP.
// Thread-safe: every method may be called while connections are served.
namespace netscore::testing {

class FakeKubeApiServer {
 public:
  struct Options {
    std::size_t history = 10000;  // events kept for watches to resume from
    std::chrono::milliseconds default_watch_timeout{std::chrono::seconds(60)};  // no timeoutSeconds
    std::chrono::milliseconds bookmark_period{
        0};  // 0: bookmarks only on demand and at the deadline
    bool expired_watch_as_http_410 = false;
    std::chrono::milliseconds continue_ttl{std::chrono::seconds(300)};
  };

  struct Counters {
    std::uint64_t lists = 0;    // list pages served (pods and nodes)
    std::uint64_t watches = 0;  // watch streams opened with 200
    std::uint64_t unauthorized = 0;
    std::uint64_t forbidden = 0;
    std::uint64_t bindings = 0;
    std::uint64_t patches = 0;  // answered 200
  };

  FakeKubeApiServer();
  explicit FakeKubeApiServer(Options options);
  FakeKubeApiServer(const FakeKubeApiServer&) = delete;
  FakeKubeApiServer& operator=(const FakeKubeApiServer&) = delete;
  ~FakeKubeApiServer();

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Objects (each write bumps the resourceVersion and produces watch events).
  void put_node(const std::string& name, kube::StringMap labels = {});
  void delete_node(const std::string& name);
  // Returns the uid. `pod.node` set: created bound (PodScheduled at creation). `created_s` 0:
  // now; set it to make pods that were placed long ago.
  std::string create_pod(kube::Pod pod);
  // Same as POST .../binding; returns the HTTP status it would answer (201, 404, 409).
  unsigned bind_pod(const std::string& ns, const std::string& name, const std::string& node);
  bool delete_pod(const std::string& ns, const std::string& name);
  bool set_pod_phase(const std::string& ns, const std::string& name, const std::string& phase);
  // A merge patch of the pod's labels; nullopt when there is no such pod.
  std::optional<kube::Pod> patch_pod_labels(const std::string& ns, const std::string& name,
                                            const kube::LabelPatch& patch);
  std::optional<kube::Pod> pod(const std::string& ns, const std::string& name) const;
  std::uint64_t resource_version() const;
  // Bound, non-terminal pods per node (what a scheduler's cache would count).
  std::map<std::string, unsigned> pods_per_node() const;

  // Authentication: with no valid tokens every request is accepted.
  void set_tokens(std::set<std::string> valid, std::set<std::string> forbidden = {});

  // Faults.
  // The next `count` requests fail; with `method`, only requests of that method count, so a
  // test aiming at one client's writes is not hit by another's reads (a watch reopened).
  void fail_next_requests(unsigned status, unsigned count, unsigned retry_after_s = 0,
                          std::string method = {});
  void compact();                    // drop the history: every earlier RV is now too old
  void expire_continue_tokens();     // outstanding continue tokens -> 410 Expired
  void stall_watches();              // open streams stop sending (no events, bookmarks or end)
  void close_watches();              // open streams end cleanly now
  void cut_watches();                // open streams send half an event and drop the connection
  void split_event_writes(bool on);  // each event written in two pieces (a read sees half)
  void bookmark_now();               // open streams with bookmarks get one at the current RV
  void inject_watch_line(kube::Resource resource, std::string line);

  // Observations.
  Counters counters() const;
  std::size_t open_watches() const;
  std::vector<std::string> request_targets() const;  // "GET /api/v1/pods?..." in arrival order
  std::vector<std::string> authorizations() const;   // Authorization header of each request

 private:
  struct Event {
    std::uint64_t rv = 0;
    kube::Resource resource = kube::Resource::pods;
    std::string type{};  // ADDED, MODIFIED, DELETED
    std::optional<kube::Pod> old_pod, new_pod;
    std::optional<kube::Node> old_node, new_node;
  };
  struct Stream {
    kube::Resource resource = kube::Resource::pods;
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
  struct Snapshot {
    std::vector<std::string> items{};
    std::size_t next = 0;
    std::uint64_t rv = 0;
    std::chrono::steady_clock::time_point created;
  };
  struct Reply {
    unsigned status = 200;
    std::string body{};
    unsigned retry_after_s = 0;
  };
  struct Request {
    std::string method{};
    std::string path{};
    std::string query{};  // without the leading '?'
    std::map<std::string, std::string> params{};
    std::string authorization{};
    std::string content_type{};
    std::string body{};

    std::string param(const std::string& key) const {
      const auto it = params.find(key);
      return it == params.end() ? std::string() : it->second;
    }
    bool has(const std::string& key) const { return params.contains(key); }
  };

  void accept_loop();
  void serve(std::shared_ptr<boost::asio::ip::tcp::socket> socket);
  Reply route(const Request& request);
  Reply list(const Request& request, kube::Resource resource, const std::string& ns);
  Reply get(kube::Resource resource, const std::string& ns, const std::string& name);
  Reply create(const Request& request, const std::string& ns);
  Reply bind(const Request& request, const std::string& ns, const std::string& name);
  Reply patch(const Request& request, const std::string& ns, const std::string& name);
  void watch(boost::asio::ip::tcp::socket& socket, const Request& request, kube::Resource resource,
             const std::string& ns);
  static Event pod_event(std::string type, std::optional<kube::Pod> old_pod,
                         std::optional<kube::Pod> new_pod);
  // Callers hold mutex_.
  std::uint64_t record(Event event);
  unsigned bind_locked(const std::string& key, const std::string& node,
                       const kube::StringMap& annotations);
  bool delete_pod_locked(const std::string& key);
  std::optional<std::string> event_line(const Stream& stream, const Event& event) const;

  Options options_;
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::uint16_t port_ = 0;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  std::uint64_t rv_ = 100;
  std::uint64_t uid_counter_ = 0;
  std::map<std::string, kube::Pod> pods_{};  // by namespace/name
  std::map<std::string, kube::Node> nodes_{};
  std::deque<Event> history_;
  std::uint64_t oldest_resumable_rv_ = 0;  // a watch from an RV below this is too old
  std::map<std::string, Snapshot> snapshots_{};
  std::uint64_t snapshot_counter_ = 0;
  std::set<std::string> valid_tokens_, forbidden_tokens_;
  unsigned fail_status_ = 0, fail_count_ = 0, fail_retry_after_s_ = 0;
  std::string fail_method_;
  bool split_writes_ = false;
  std::list<std::shared_ptr<Stream>> streams_;
  Counters counters_;
  std::vector<std::string> targets_, authorizations_;
  std::list<std::shared_ptr<boost::asio::ip::tcp::socket>> sockets_;
  std::list<std::thread> connections_;
  std::thread acceptor_thread_;
};

}  // namespace netscore::testing
