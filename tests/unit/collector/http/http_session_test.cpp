// The one libcurl session of the collector against the fake HTTP server (127.0.0.1): what it
// sends, how each kind of failure reads, the body cap, streamed lines, the token file and stopping.
#include "collector/http/http_session.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <stop_token>
#include <string>
#include <vector>

#include "tests/support/curl_environment.h"
#include "tests/support/eventually.h"
#include "tests/support/fake_http_server.h"

namespace netscore::collector {
namespace {

using testing::CannedResponse;
using testing::eventually;
using testing::FakeHttpServer;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
namespace fs = std::filesystem;

// Longer than any test may take: a request that waits for it must have been cut short.
constexpr std::chrono::minutes kNever{2};

std::vector<std::string> lines_of(HttpSession& session, const std::string& url, HttpResult& result,
                                  const std::string& stop_at = {}) {
  std::vector<std::string> lines;
  result = session.get_lines(url, std::chrono::seconds(20), [&](std::string_view line) {
    lines.emplace_back(line);
    return line != stop_at;
  });
  return lines;
}

TEST(HttpSession, GetSendsTheConfiguredHeadersAndReturnsTheAnswer) {
  FakeHttpServer server;
  server.respond_with({200, "hello", {}});
  HttpSession session({.headers = {"X-Scope-OrgID: tenant1"}, .user_agent = "session-test"});
  const HttpResult result = session.get(server.url() + "/some/path?x=1");
  ASSERT_TRUE(result.ok()) << result.transport_error;
  EXPECT_EQ(result.body, "hello");
  EXPECT_EQ(result.new_connections, 1);
  const auto seen = server.last_request();
  EXPECT_EQ(seen.target, "/some/path?x=1");
  EXPECT_EQ(seen.headers.at("x-scope-orgid"), "tenant1");
  EXPECT_EQ(seen.headers.at("user-agent"), "session-test");
  EXPECT_EQ(seen.headers.count("authorization"), 0U);
}

TEST(HttpSession, PostFormSendsTheEncodedForm) {
  FakeHttpServer server;
  server.respond_with({200, "{}", {}});
  HttpSession session({});
  const std::string form = "query=" + url_escape("up{job=\"a b\"}").value() + "&time=1.000";
  ASSERT_TRUE(session.post_form(server.url() + "/api/v1/query", form).ok());
  const auto seen = server.last_request();
  EXPECT_EQ(seen.body, "query=up%7Bjob%3D%22a%20b%22%7D&time=1.000");
  EXPECT_EQ(seen.headers.at("content-type"), "application/x-www-form-urlencoded");
}

TEST(HttpSession, AnErrorStatusIsAnAnswerWithItsBody) {
  FakeHttpServer server;
  server.respond_with({503, "unavailable", {}});
  HttpSession session({});
  const HttpResult result = session.get(server.url());
  EXPECT_TRUE(result.answered());
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.http_status, 503);
  EXPECT_EQ(result.body, "unavailable");
  EXPECT_EQ(describe_failure(result), "http status 503");
}

TEST(HttpSession, ABodyOverTheCapIsATransportError) {
  FakeHttpServer server;
  server.respond_with({200, std::string(4096, 'x'), {}});
  HttpSession session({.max_body_bytes = 1024});
  const HttpResult result = session.get(server.url());
  EXPECT_FALSE(result.answered());
  EXPECT_EQ(describe_failure(result), "transport error: response body exceeds 1024 bytes");
  EXPECT_TRUE(result.body.empty());
}

TEST(HttpSession, ATimeoutAndAnUnreachableServerAreTransportErrors) {
  FakeHttpServer server;
  server.respond_with({200, "late", kNever});
  HttpSession session({.timeout = std::chrono::milliseconds(300)});
  const HttpResult slow = session.get(server.url());
  EXPECT_THAT(slow.transport_error, StartsWith("Timeout was reached ("));
  const HttpResult refused = session.get("http://127.0.0.1:1/");
  EXPECT_FALSE(refused.answered());
  EXPECT_THAT(refused.transport_error, StartsWith("Couldn't connect to server"));
}

TEST(HttpSession, StreamedLinesGoOutOneByOne) {
  FakeHttpServer server;
  server.respond_with({200, "first\r\n\nsecond\nunfinished", {}});
  HttpSession session({});
  HttpResult result;
  EXPECT_EQ(lines_of(session, server.url(), result), (std::vector<std::string>{"first", "second"}));
  EXPECT_TRUE(result.ok()) << result.transport_error;
  EXPECT_TRUE(result.body.empty());
}

TEST(HttpSession, AHandlerEndsTheStreamWithoutAFailure) {
  FakeHttpServer server;
  server.respond_with({200, "a\nb\nc\n", {}});
  HttpSession session({});
  HttpResult result;
  EXPECT_EQ(lines_of(session, server.url(), result, "b"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(result.ok()) << result.transport_error;
}

TEST(HttpSession, AStreamedErrorStatusReturnsItsWholeBody) {
  FakeHttpServer server;
  server.respond_with({410, "{\"code\":410}\n", {}});
  HttpSession session({});
  HttpResult result;
  EXPECT_TRUE(lines_of(session, server.url(), result).empty());
  EXPECT_EQ(result.http_status, 410);
  EXPECT_EQ(result.body, "{\"code\":410}\n");
}

TEST(HttpSession, AStreamIsCappedPerUnfinishedLineNotInTotal) {
  FakeHttpServer server;
  std::string body;
  for (int i = 0; i < 50; ++i) body += "0123456789\n";
  server.respond_with({200, body, {}});
  HttpSession session({.max_body_bytes = 64});
  HttpResult result;
  EXPECT_EQ(lines_of(session, server.url(), result).size(), 50U);
  EXPECT_TRUE(result.ok()) << result.transport_error;
  server.respond_with({200, std::string(100, 'x'), {}});
  EXPECT_TRUE(lines_of(session, server.url(), result).empty());
  EXPECT_EQ(result.transport_error, "response body exceeds 64 bytes");
}

class TokenFile {
 public:
  TokenFile()
      : path_(fs::temp_directory_path() / ("netscore-session-token-" + std::to_string(getpid()))) {}
  ~TokenFile() { fs::remove(path_); }
  void write(const std::string& token) { std::ofstream(path_) << token; }
  // Another file renamed over this one, as a projected token volume swaps its files.
  void replace(const std::string& token, fs::file_time_type modified) {
    const fs::path next = path_.string() + ".next";
    std::ofstream(next) << token;
    fs::last_write_time(next, modified);
    fs::rename(next, path_);
  }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

TEST(HttpSession, TheTokenFileIsReReadWhenItChangesAndAnUnusableOneFailsTheRequest) {
  FakeHttpServer server;
  server.respond_with({200, "{}", {}});
  TokenFile token;
  token.write("first-token\n");
  HttpSession session({.bearer_token_file = token.path()});
  const auto authorization = [&] {
    EXPECT_TRUE(session.get(server.url()).ok());
    return server.last_request().headers.at("authorization");
  };
  EXPECT_EQ(authorization(), "Bearer first-token");
  // Rewritten in place: a distinct modification time without sleeping.
  token.write("other-token");
  fs::last_write_time(token.path(), fs::last_write_time(token.path()) + std::chrono::seconds(5));
  EXPECT_EQ(authorization(), "Bearer other-token");
  // Swapped for a file of the same size and time: only the inode differs.
  token.replace("third-token", fs::last_write_time(token.path()));
  EXPECT_EQ(authorization(), "Bearer third-token");

  const auto requests = server.requests();
  token.write("  \n");
  EXPECT_EQ(session.get(server.url()).transport_error,
            "bearer token file " + token.path() + " is empty");
  fs::remove(token.path());
  EXPECT_EQ(session.get(server.url()).transport_error,
            "cannot stat bearer token file " + token.path());
  EXPECT_EQ(server.requests(), requests) << "no request without a token";
}

TEST(HttpSession, AStoppedSessionSendsNothing) {
  FakeHttpServer server;
  std::stop_source stop;
  HttpSession session({.stop = stop.get_token()});
  stop.request_stop();
  EXPECT_EQ(session.get(server.url()).transport_error, "stopped");
  EXPECT_EQ(server.requests(), 0U);
}

TEST(HttpSession, StoppingEndsATransferWaitingOnASilentServer) {
  FakeHttpServer server;
  server.respond_with({200, "late", kNever});
  std::stop_source stop;
  HttpSession session({.timeout = kNever, .stop = stop.get_token()});
  auto result = std::async(std::launch::async, [&] { return session.get(server.url()); });
  ASSERT_TRUE(eventually([&] { return server.requests() == 1; }));
  stop.request_stop();
  // Bounded by half of what the transfer would otherwise wait, so a loaded machine cannot fail
  // the test and a missing wake-up can.
  ASSERT_EQ(result.wait_for(kNever / 2), std::future_status::ready);
  EXPECT_EQ(result.get().transport_error, "stopped");
}

TEST(HttpSession, TlsFailuresNameTheSettingToCheck) {
  FakeHttpServer server;
  const std::string url = "https://" + server.url().substr(std::string("http://").size());
  const TlsFiles missing_ca{.ca_file = "/nonexistent/ca.crt"};
  HttpSession named(
      {.tls = missing_ca,
       .tls_names = {.server = "Prometheus", .ca_file = "NETSCORE_PROMETHEUS_CA_FILE"}});
  EXPECT_THAT(named.get(url).transport_error,
              StartsWith("TLS: cannot use NETSCORE_PROMETHEUS_CA_FILE: "));
  HttpSession unnamed({.tls = missing_ca});
  const HttpResult plain = unnamed.get(url);
  EXPECT_FALSE(plain.answered());
  EXPECT_THAT(plain.transport_error, Not(HasSubstr("TLS:")));
}

}  // namespace
}  // namespace netscore::collector
