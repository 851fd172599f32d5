#include <sys/socket.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "common/logging.h"
#include "common/table/score_table_writer.h"
#include "extender/http/server.h"
#include "tests/support/eventually.h"
#include "tests/support/http_connection.h"
#include "tests/support/table_name.h"

namespace netscore::extender {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

// As netscore-extender's main does: logging is set up before any server thread starts, so the
// threads never race to create spdlog's registry.
class LoggingEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { init_logging("extender-test", LogLevel::warn); }
};
const auto* const kLogging = ::testing::AddGlobalTestEnvironment(new LoggingEnvironment);
using tcp = net::ip::tcp;
using ::testing::HasSubstr;

using Client = netscore::testing::HttpConnection;

std::string names_body(std::string_view names_json) {
  return R"({"Pod":{"metadata":{"name":"p"}},"Nodes":null,"NodeNames":)" + std::string(names_json) +
         "}";
}

constexpr std::string_view kExpected =
    R"([{"Host":"a","Score":10},{"Host":"b","Score":8},{"Host":"c","Score":0}])";

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    writer_.emplace(ScoreTableWriter::Options{.name = name_, .capacity = 64});
    const std::vector<TableEntry> entries = {{{.raw = 0,
                                               .raw_score = 0,
                                               .node_score = 100,
                                               .sample_ms = 1,
                                               .corrected_raw_score = 0,
                                               .corrected_node_score = 100,
                                               .flags = shm::kEntryHasSeries | shm::kEntryValid},
                                              "a"},
                                             {{.raw = 50,
                                               .raw_score = 50,
                                               .node_score = 75,
                                               .sample_ms = 1,
                                               .corrected_raw_score = 50,
                                               .corrected_node_score = 75,
                                               .flags = shm::kEntryHasSeries | shm::kEntryValid},
                                              "b"},
                                             {{.raw = 200,
                                               .raw_score = 200,
                                               .node_score = 0,
                                               .sample_ms = 1,
                                               .corrected_raw_score = 200,
                                               .corrected_node_score = 0,
                                               .flags = shm::kEntryHasSeries | shm::kEntryValid},
                                              "c"}};
    writer_->publish(entries, 1);
    config_.shm.name = name_;
    config_.max_age = {std::chrono::seconds(60), "1m"};
    config_.extender.listen_host = "127.0.0.1";
    config_.extender.listen_port = 0;
    config_.extender.threads = 2;
    config_.extender.body_limit = 16 * 1024 * 1024;
    // Generous: reading the 10 MB bodies below under ThreadSanitizer on a loaded machine takes
    // seconds, and a starved server thread must not time out a request that arrived whole. The
    // slow-client test sets its own short one.
    config_.extender.header_timeout = {std::chrono::seconds(60), "60s"};
    config_.extender.idle_timeout = {std::chrono::seconds(30), "30s"};
    config_.extender.max_connections = 64;
    config_.extender.neutral_score = 5;
    server_.emplace(config_);
    server_->start();
  }
  void TearDown() override { server_.reset(); }

  // Each server thread attaches on its own first poll; wait (bounded) until requests see the table.
  void wait_until_scored(Client& client) {
    if (!netscore::testing::eventually(
            [&] { return client.send(http::verb::get, "/readyz").result_int() == 200; })) {
      FAIL() << "server never became ready";
    }
  }

  netscore::testing::TableName name_{"server"};
  Config config_;
  std::optional<ScoreTableWriter> writer_;
  std::optional<Server> server_;
};

TEST_F(ServerTest, KeepAliveConnectionServesManyRequests) {
  Client client(server_->port());
  wait_until_scored(client);
  for (int i = 0; i < 20; ++i) {
    const auto res =
        client.send(http::verb::post, "/netscore/prioritize", names_body(R"(["a","b","c"])"));
    ASSERT_EQ(res.result_int(), 200U);
    EXPECT_EQ(res.body(), kExpected);
    EXPECT_TRUE(res.keep_alive());
    EXPECT_EQ(res[http::field::content_type], "application/json");
  }
}

TEST_F(ServerTest, ConcurrentClientsAllGetCorrectAnswers) {
  {
    Client probe(server_->port());
    wait_until_scored(probe);
  }
  std::vector<std::thread> threads;
  std::atomic<int> good{0};
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&] {
      Client client(server_->port());
      for (int i = 0; i < 100; ++i) {
        const auto res =
            client.send(http::verb::post, "/netscore/prioritize", names_body(R"(["a","b","c"])"));
        if (res.result_int() == 200 && res.body() == kExpected) ++good;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(good.load(), 600);
}

TEST_F(ServerTest, BadInputGetsAClearErrorAndTheConnectionKeepsWorking) {
  Client client(server_->port());
  wait_until_scored(client);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"Pod\":", "malformed JSON"},
      {R"({"Pod":{},"NodeNames":[1,2]})", "only strings"},
      {R"({"Pod":{},"NodeNames":{"a":1}})", "NodeNames must not be an object"},
      {R"({"Nodes":null,"NodeNames":["a"]})", "missing Pod"},
      {R"({"Pod":{},"Nodes":null,"NodeNames":null})", "both NodeNames and Nodes"},
      {R"({"Pod":{},"NodeNames":["a","a"]})", "duplicate node name"},
      {"{\"Pod\":{},\"NodeNames\":[\"a\xc3\x28\"]}", "malformed JSON"},
  };
  for (const auto& [body, message] : cases) {
    const auto res = client.send(http::verb::post, "/netscore/prioritize", body);
    EXPECT_EQ(res.result_int(), 400U) << body;
    EXPECT_THAT(res.body(), HasSubstr(R"({"error":")")) << body;
    EXPECT_THAT(res.body(), HasSubstr(message)) << body;
  }
  std::string huge = R"({"Pod":{},"NodeNames":[)";
  for (int i = 0; i < 1'000'000; ++i) huge += i == 0 ? "\"n0\"" : ",\"n" + std::to_string(i) + "\"";
  huge += "]}";
  auto res = client.send(http::verb::post, "/netscore/filter", huge);
  EXPECT_EQ(res.result_int(), 400U);
  EXPECT_THAT(res.body(), HasSubstr("more than 65536 nodes"));
  std::string numbers = R"({"Pod":{},"Junk":[)";
  for (int i = 0; i < 1'000'000; ++i) numbers += i == 0 ? "0" : ",1";
  numbers += R"(],"NodeNames":["a"]})";
  res = client.send(http::verb::post, "/netscore/prioritize", numbers);
  EXPECT_EQ(res.result_int(), 200U);
  EXPECT_EQ(res.body(), R"([{"Host":"a","Score":10}])");

  res = client.send(http::verb::get, "/netscore/prioritize");
  EXPECT_EQ(res.result_int(), 405U);
  EXPECT_EQ(res[http::field::allow], "POST");
  EXPECT_EQ(client.send(http::verb::get, "/nope").result_int(), 404U);
  res = client.send(http::verb::post, "/netscore/prioritize", names_body(R"(["a","b","c"])"));
  EXPECT_EQ(res.body(), kExpected);
}

TEST_F(ServerTest, OversizedBodyGets413AndClose) {
  Client client(server_->port());
  client.write_raw(
      "POST /netscore/prioritize HTTP/1.1\r\nHost: x\r\nContent-Length: 20000000\r\n\r\n{");
  const auto res = client.read();
  EXPECT_EQ(res.result_int(), 413U);
  EXPECT_THAT(res.body(), HasSubstr("exceeds the limit of 16777216 bytes"));
  EXPECT_TRUE(client.closed_by_server());
}

TEST_F(ServerTest, OversizedHeaderGets431) {
  Client client(server_->port());
  client.write_raw("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20000, 'a') +
                   "\r\n\r\n");
  EXPECT_EQ(client.read().result_int(), 431U);
  EXPECT_TRUE(client.closed_by_server());
}

TEST_F(ServerTest, GarbageRequestLineGets400) {
  Client client(server_->port());
  client.write_raw("HELLO\x01 world\r\n\r\n");
  EXPECT_EQ(client.read().result_int(), 400U);
  EXPECT_TRUE(client.closed_by_server());
}

TEST_F(ServerTest, SlowClientIsDisconnectedAfterTheRequestTimeout) {
  server_.reset();
  config_.extender.header_timeout = {std::chrono::milliseconds(500), "500ms"};
  server_.emplace(config_);
  server_->start();
  Client slow(server_->port());
  const auto start = std::chrono::steady_clock::now();
  slow.write_raw("POST /netscore/prioritize HTTP/1.1\r\nHost: x\r\nContent-Len");
  EXPECT_TRUE(slow.closed_by_server());
  // The 500 ms request timeout closed it, not the 30 s idle timeout: half of that as the bound
  // leaves a loaded machine under ThreadSanitizer all the slack it needs.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15));
  Client client(server_->port());
  wait_until_scored(client);
  EXPECT_EQ(
      client.send(http::verb::post, "/netscore/prioritize", names_body(R"(["a","b","c"])")).body(),
      kExpected);
}

TEST_F(ServerTest, DrainClosesIdleConnectionsAndStops) {
  Client client(server_->port());
  wait_until_scored(client);
  server_->drain();
  EXPECT_TRUE(client.closed_by_server());
  server_->wait();
  net::io_context ioc;
  tcp::socket s(ioc);
  beast::error_code ec;
  s.connect({net::ip::make_address("127.0.0.1"), server_->port()}, ec);
  EXPECT_TRUE(ec);
}

TEST(ServerBind, PortInUseThrowsWithTheReason) {
  net::io_context ioc;
  tcp::acceptor taken(ioc, {net::ip::make_address("127.0.0.1"), 0});
  Config config;
  config.extender.listen_host = "127.0.0.1";
  config.extender.listen_port = taken.local_endpoint().port();
  config.extender.threads = 1;
  try {
    Server server(config);
    FAIL() << "bind succeeded on a taken port";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot listen on 127.0.0.1:"));
    EXPECT_THAT(e.what(), HasSubstr("bind"));
  }
}

// One listener per address: a second extender (or anything) already there makes the bind fail,
// even a listener that set SO_REUSEPORT, which earlier releases set and so joined silently.
TEST(ServerBind, SecondListenerOnTheSameAddressIsRefused) {
  Config config;
  config.extender.listen_host = "127.0.0.1";
  config.extender.listen_port = 0;
  config.extender.threads = 2;
  Server first(config);
  config.extender.listen_port = first.port();
  const std::string address = "127.0.0.1:" + std::to_string(first.port());
  EXPECT_THROW(
      {
        try {
          Server second(config);
        } catch (const std::runtime_error& e) {
          EXPECT_THAT(e.what(), HasSubstr("cannot listen on " + address + ": bind"));
          throw;
        }
      },
      std::runtime_error);

  net::io_context ioc;
  tcp::acceptor reuse_port(ioc, tcp::v4());
  reuse_port.set_option(net::detail::socket_option::boolean<SOL_SOCKET, SO_REUSEPORT>(true));
  reuse_port.bind({net::ip::make_address("127.0.0.1"), 0});
  reuse_port.listen();
  config.extender.listen_port = reuse_port.local_endpoint().port();
  EXPECT_THROW(Server{config}, std::runtime_error);
}

}  // namespace
}  // namespace netscore::extender
