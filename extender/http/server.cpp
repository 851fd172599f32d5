#include "extender/http/server.h"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <unordered_set>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <spdlog/spdlog.h>

#include "common/clock.h"
#include "common/config_types.h"
#include "extender/http/exchange.h"

namespace netscore::extender {
namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

constexpr std::size_t kFirstRead = 8 * 1024;

std::chrono::milliseconds ms(const PromDuration& d) {
  return d.value;
}

}  // namespace

class Session;

// Everything one server thread owns. Only touched from its own io_context thread.
class Worker {
 public:
  Worker(const Config& config, SharedState& shared, std::atomic<unsigned>& connections,
         unsigned index)
      : config_(config),
        shared_(shared),
        connections_(connections),
        acceptor_(ioc_),
        metrics_acceptor_(ioc_),
        poll_timer_(ioc_),
        attachment_({config.shm.name, 64}),
        handlers_(config, shared, index),
        metrics_handlers_(config, shared, index, true),
        index_(index) {}

  void listen(const tcp::endpoint& endpoint) { open(acceptor_, endpoint); }
  void listen_metrics(const tcp::endpoint& endpoint) { open(metrics_acceptor_, endpoint); }
  // The other threads accept from the same listening sockets through their own descriptors, so
  // they share the one address nobody else can join; each io_context waits on it and whichever
  // is free takes the next connection.
  void share(Worker& first) {
    share_socket(acceptor_, first.acceptor_);
    if (first.metrics_acceptor_.is_open()) share_socket(metrics_acceptor_, first.metrics_acceptor_);
  }
  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }
  std::uint16_t metrics_port() const { return metrics_acceptor_.local_endpoint().port(); }

  void start() {
    poll_table();
    accept(acceptor_, handlers_);
    if (metrics_acceptor_.is_open()) accept(metrics_acceptor_, metrics_handlers_);
  }
  void drain() {
    net::post(ioc_, [this] {
      beast::error_code ec;
      acceptor_.close(ec);
      metrics_acceptor_.close(ec);
      poll_timer_.cancel();
      const std::vector<Session*> open(sessions_.begin(), sessions_.end());
      for (Session* s : open) drain_session(s);
    });
  }
  void run() { ioc_.run(); }

  const Config& config() const { return config_; }
  SharedState& shared() { return shared_; }
  const TableAttachment& attachment() const { return attachment_; }
  unsigned index() const { return index_; }
  void add(Session* s) { sessions_.insert(s); }
  void remove(Session* s) {
    sessions_.erase(s);
    connections_.fetch_sub(1, std::memory_order_relaxed);
  }

 private:
  static void open(tcp::acceptor& acceptor, const tcp::endpoint& endpoint) {
    beast::error_code ec;
    const auto fail = [&](const char* what) {
      throw std::runtime_error("cannot listen on " + endpoint.address().to_string() + ":" +
                               std::to_string(endpoint.port()) + ": " + what + ": " + ec.message());
    };
    if (acceptor.open(endpoint.protocol(), ec)) fail("open");
    // SO_REUSEADDR only lets a restart bind past TIME_WAIT connections. No SO_REUSEPORT: with it a
    // second extender on the same address would bind too and the kernel would split the
    // scheduler's connections between two tables; without it that bind fails (EADDRINUSE).
    if (acceptor.set_option(net::socket_base::reuse_address(true), ec)) fail("SO_REUSEADDR");
    if (acceptor.bind(endpoint, ec)) fail("bind");
    if (acceptor.listen(net::socket_base::max_listen_connections, ec)) fail("listen");
  }
  void share_socket(tcp::acceptor& mine, tcp::acceptor& first) {
    const int fd = ::dup(first.native_handle());
    beast::error_code ec;
    if (fd < 0 || mine.assign(first.local_endpoint().protocol(), fd, ec)) {
      if (fd >= 0) ::close(fd);
      throw std::runtime_error("cannot share a listening socket with thread " +
                               std::to_string(index_) + ": " +
                               (fd < 0 ? std::string(std::strerror(errno)) : ec.message()));
    }
  }
  void accept(tcp::acceptor& acceptor, Handlers& handlers);
  static void drain_session(Session* s);
  void poll_table() {
    const std::string before = attachment_.last_error();
    if (attachment_.poll())
      spdlog::info("table attached shm={} thread={}", config_.shm.name, index_);
    if (!attachment_.last_error().empty() && attachment_.last_error() != before) {
      spdlog::warn("table attach failed shm={} thread={} error=\"{}\"", config_.shm.name, index_,
                   attachment_.last_error());
    }
    if (index_ == 0) shared_.table_state.observe(table_health(attachment_, config_, mono_now_ns()));
    if (shared_.draining.load(std::memory_order_relaxed)) return;
    poll_timer_.expires_after(std::chrono::seconds(1));
    poll_timer_.async_wait([this](beast::error_code ec) {
      if (!ec) poll_table();
    });
  }

  const Config& config_;
  SharedState& shared_;
  std::atomic<unsigned>& connections_;
  net::io_context ioc_{1};
  tcp::acceptor acceptor_;
  tcp::acceptor metrics_acceptor_;  // open only with NETSCORE_METRICS_LISTEN
  net::steady_timer poll_timer_;
  TableAttachment attachment_;
  Handlers handlers_;
  Handlers metrics_handlers_;
  unsigned index_;
  std::unordered_set<Session*> sessions_;
};

// One connection. Pending handlers own it through shared_from_this (Beast advanced_server).
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, Worker& worker, Handlers& handlers)
      : stream_(std::move(socket)), worker_(worker), handlers_(handlers) {
    worker_.add(this);
  }
  ~Session() { worker_.remove(this); }

  void start() { wait_for_request(); }

  // Idle connections close now; a request being read or answered finishes first (then closes,
  // because on_write sees the draining flag).
  void drain() {
    if (!idle_) return;
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
  }

 private:
  const ExtenderConfig& cfg() const { return worker_.config().extender; }

  // The idle timeout covers the wait for the first byte of a request; the header timeout covers
  // the rest of it, so a slow client cannot hold a connection with a trickle of bytes.
  void wait_for_request() {
    parser_.emplace();
    limit_request(*parser_, cfg());
    if (buffer_.size() > 0) return read_request();
    idle_ = true;
    stream_.expires_after(ms(cfg().idle_timeout));
    stream_.async_read_some(
        buffer_.prepare(kFirstRead),
        beast::bind_front_handler(&Session::on_first_bytes, shared_from_this()));
  }

  void on_first_bytes(beast::error_code ec, std::size_t n) {
    idle_ = false;
    if (ec) return close();
    buffer_.commit(n);
    read_request();
  }

  void read_request() {
    stream_.expires_after(ms(cfg().header_timeout));
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&Session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t) {
    started_ns_ = mono_now_ns();
    auto reply = answer_read(ec, *parser_, handlers_, worker_.attachment(), started_ns_,
                             worker_.shared().draining.load(std::memory_order_relaxed), cfg());
    if (!reply) return close();
    send(std::move(*reply));
  }

  void send(Reply reply) {
    verb_ = reply.response.verb;
    const bool keep_alive = reply.keep_alive;
    build_response(std::move(reply), res_);
    stream_.expires_after(ms(cfg().header_timeout));
    http::async_write(
        stream_, res_,
        beast::bind_front_handler(&Session::on_write, shared_from_this(), keep_alive));
  }

  void on_write(bool keep_alive, beast::error_code ec, std::size_t) {
    worker_.shared().metrics.record(worker_.index(), verb_, res_.result_int(),
                                    mono_now_ns() - started_ns_);
    if (ec || !keep_alive || worker_.shared().draining.load(std::memory_order_relaxed))
      return close();
    wait_for_request();
  }

  void close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    stream_.socket().close(ec);
  }

  beast::tcp_stream stream_;
  Worker& worker_;
  Handlers& handlers_;
  beast::flat_buffer buffer_;
  std::optional<RequestParser> parser_;
  HttpResponse res_;
  std::int64_t started_ns_ = 0;
  Verb verb_ = Verb::other;
  bool idle_ = false;
};

void Worker::drain_session(Session* s) {
  s->drain();
}

void Worker::accept(tcp::acceptor& acceptor, Handlers& handlers) {
  acceptor.async_accept([this, &acceptor, &handlers](beast::error_code ec, tcp::socket socket) {
    if (ec) {
      if (ec == net::error::operation_aborted || !acceptor.is_open()) return;
      spdlog::warn("accept failed thread={} error=\"{}\"", index_, ec.message());
      return accept(acceptor, handlers);
    }
    if (connections_.fetch_add(1, std::memory_order_relaxed) >= config_.extender.max_connections) {
      connections_.fetch_sub(1, std::memory_order_relaxed);
      SPDLOG_DEBUG("connection refused: {} connections per thread reached", kConnectionsPerThread);
      socket.close(ec);
      return accept(acceptor, handlers);
    }
    socket.set_option(tcp::no_delay(true), ec);
    std::make_shared<Session>(std::move(socket), *this, handlers)->start();
    accept(acceptor, handlers);
  });
}

namespace {

tcp::endpoint resolve(const std::string& host, std::uint16_t port, std::string_view variable) {
  beast::error_code ec;
  net::io_context resolve_ctx;
  tcp::resolver r(resolve_ctx);
  const auto results = r.resolve(host, std::to_string(port), tcp::resolver::numeric_service, ec);
  if (ec || results.empty()) {
    throw std::runtime_error("cannot resolve " + std::string(variable) + " host " + host + ": " +
                             ec.message());
  }
  return results.begin()->endpoint();
}

}  // namespace

Server::Server(const Config& config)
    : config_(config),
      shared_(config.extender.threads, config.extender.explain_decisions,
              config.extender.explain_nodes) {
  tcp::endpoint endpoint =
      resolve(config_.extender.listen_host, config_.extender.listen_port, "NETSCORE_LISTEN");
  if (!endpoint.address().is_loopback()) {
    spdlog::warn(
        "listening on non-loopback address={} — "
        "kube-scheduler normally reaches the extender on 127.0.0.1; "
        "anyone who can reach this port can read /table and /explain and steer scoring requests",
        endpoint.address().to_string());
  }
  const bool metrics = !config_.extender.metrics_host.empty();
  tcp::endpoint metrics_endpoint;
  if (metrics) {
    metrics_endpoint = resolve(config_.extender.metrics_host, config_.extender.metrics_port,
                               "NETSCORE_METRICS_LISTEN");
  }
  for (unsigned i = 0; i < std::max(1U, config_.extender.threads); ++i) {
    auto worker = std::make_unique<Worker>(config_, shared_, connections_, i);
    if (i == 0) {
      worker->listen(endpoint);
      if (metrics) worker->listen_metrics(metrics_endpoint);
      port_ = worker->port();
      if (metrics) metrics_port_ = worker->metrics_port();
    } else {
      worker->share(*workers_.front());
    }
    workers_.push_back(std::move(worker));
  }
}

Server::~Server() {
  if (!threads_.empty()) {
    drain();
    wait();
  }
}

void Server::start() {
  for (auto& w : workers_) {
    threads_.emplace_back([worker = w.get()] {
      worker->start();
      worker->run();
    });
  }
}

void Server::drain() {
  shared_.draining.store(true, std::memory_order_relaxed);
  for (auto& w : workers_) w->drain();
}

void Server::wait() {
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

void Server::run_until_signal() {
  net::io_context signal_ctx;
  net::signal_set signals(signal_ctx, SIGTERM, SIGINT);
  signals.async_wait([this](beast::error_code ec, int signal) {
    if (ec) return;
    spdlog::info("draining signal={} connections={}", signal, connections_.load());
    drain();
  });
  signal_ctx.run();
  wait();
}

}  // namespace netscore::extender
