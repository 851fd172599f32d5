// A real Prometheus behind --web.config.file: TLS with basic auth, and TLS requiring a client
// certificate. Certificates are made with openssl and the password hashed with htpasswd (bcrypt)
// in a temporary directory. Each setting works, each wrong one fails saying which, and no secret
// reaches the collector's log, the extender's /table or /metrics.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/integration/collector/collector_test_helpers.h"
#include "tests/support/binary_process.h"
#include "tests/support/eventually.h"
#include "tests/support/http_client.h"
#include "tests/support/prometheus_process.h"
#include "tests/support/synth.h"

namespace netscore::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr unsigned kNodes = 6;
constexpr const char* kUser = "alice";
constexpr const char* kPassword = "pw-secret-7f3a";
constexpr const char* kHeaderSecret = "hdr-secret-91c2";

// Runs a shell command with its output captured; throws with the output when it fails.
std::string run(const std::string& command) {
  std::unique_ptr<FILE, decltype(&pclose)> pipe(popen((command + " 2>&1").c_str(), "r"), &pclose);
  if (!pipe) throw std::runtime_error("cannot run " + command);
  std::string out;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe.get()) != nullptr) out += buffer;
  const int status = pclose(pipe.release());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(command + " failed: " + out);
  return out;
}

// A CA, a server certificate for 127.0.0.1, a client certificate, and an unrelated CA.
struct Pki {
  std::string dir;

  explicit Pki(std::string directory) : dir(std::move(directory)) {
    const std::string ec = " -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    for (const char* ca : {"ca", "other-ca"}) {
      run("openssl req -x509" + ec + " -keyout " + path(ca) + ".key -out " + path(ca) +
          ".crt -days 2 -subj /CN=" + ca);
    }
    std::ofstream(path("server.ext"))
        << "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n";
    std::ofstream(path("client.ext")) << "extendedKeyUsage=clientAuth\n";
    for (const char* who : {"server", "client"}) {
      run("openssl req" + ec + " -keyout " + path(who) + ".key -out " + path(who) +
          ".csr -subj /CN=netscore-" + who);
      run("openssl x509 -req -in " + path(who) + ".csr -CA " + path("ca") + ".crt -CAkey " +
          path("ca") + ".key -CAcreateserial -days 2 -out " + path(who) + ".crt -extfile " +
          path(who) + ".ext");
    }
  }
  std::string path(const std::string& name) const { return dir + "/" + name; }
};

class CollectorTlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string pattern = (fs::temp_directory_path() / "netscore-tls-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    pki_ = std::make_unique<Pki>(pattern);
    // htpasswd prints "alice:$2y$..."; cost 4 keeps Prometheus' check fast.
    std::string hash = run(std::string("htpasswd -nbBC 4 ") + kUser + " " + kPassword);
    hash = hash.substr(hash.find(':') + 1);
    while (!hash.empty() && (hash.back() == '\n' || hash.back() == '\r')) hash.pop_back();
    const std::string tls = "tls_server_config:\n  cert_file: " + pki_->path("server.crt") +
                            "\n  key_file: " + pki_->path("server.key") + "\n";
    now_s_ = std::time(nullptr);
    const SynthOptions traffic{.nodes = kNodes,
                               .end_s = now_s_ + 3600,
                               .hours = 2,
                               .step_s = 15,
                               .layout = SynthLayout::kubernetes_node,
                               .extra_metric = {}};
    basic_ = std::make_unique<PrometheusProcess>(
        traffic,
        ServeOptions{.route_prefix = {},
                     .web_config = tls + "basic_auth_users:\n  " + kUser + ": '" + hash + "'\n",
                     .probe = {.ca_file = pki_->path("ca.crt"),
                               .cert_file = {},
                               .key_file = {},
                               .user_password = std::string(kUser) + ":" + kPassword}});
    mtls_ = std::make_unique<PrometheusProcess>(
        traffic,
        ServeOptions{
            .route_prefix = {},
            .web_config = tls +
                          "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: " +
                          pki_->path("ca.crt") + "\n",
            .probe = client_auth()});
  }
  static void TearDownTestSuite() {
    basic_.reset();
    mtls_.reset();
    if (pki_) fs::remove_all(pki_->dir);
    pki_.reset();
  }

  static ClientAuth client_auth() {
    return {.ca_file = pki_->path("ca.crt"),
            .cert_file = pki_->path("client.crt"),
            .key_file = pki_->path("client.key"),
            .user_password = {}};
  }

  // https://user:password@127.0.0.1:port for the basic-auth Prometheus.
  static std::string basic_url(const std::string& password) {
    return "https://" + std::string(kUser) + ":" + password + "@" +
           basic_->url().substr(std::string("https://").size());
  }

  static collector::Measurement refresh(const Config& config, std::size_t& rows) {
    TableFixture table("collector-tls");
    collector::PrometheusClient client({config.prometheus});
    Refresh refresher(config, client, table.writer());
    const auto result = refresher.refresh((now_s_ + 60) * 1000, no_wait());
    shm::SnapshotMeta meta{};
    rows = result.ok ? table.rows(meta).size() : 0;
    return result;
  }

  static inline std::int64_t now_s_ = 0;
  static inline std::unique_ptr<Pki> pki_;
  static inline std::unique_ptr<PrometheusProcess> basic_;
  static inline std::unique_ptr<PrometheusProcess> mtls_;
};

TEST_F(CollectorTlsTest, BasicAuthOverTlsWithTheCaFile) {
  Config config = collector_config(basic_url(kPassword));
  config.prometheus.ca_file = pki_->path("ca.crt");
  std::size_t rows = 0;
  const auto result = refresh(config, rows);
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(rows, kNodes);
}

TEST_F(CollectorTlsTest, WrongPasswordSaysTheCredentialsWereRefused) {
  Config config = collector_config(basic_url("not-the-password"));
  config.prometheus.ca_file = pki_->path("ca.crt");
  std::size_t rows = 0;
  const auto result = refresh(config, rows);
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.error, HasSubstr("http status 401: Prometheus refused the credentials"));
  EXPECT_THAT(result.error, Not(HasSubstr("not-the-password")));
}

TEST_F(CollectorTlsTest, WrongCaSaysTheCertificateIsNotTrusted) {
  Config config = collector_config(basic_url(kPassword));
  config.prometheus.ca_file = pki_->path("other-ca.crt");
  std::size_t rows = 0;
  const auto result = refresh(config, rows);
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(
      result.error,
      HasSubstr("TLS: Prometheus' certificate is not trusted, check NETSCORE_PROMETHEUS_CA_FILE"));
  EXPECT_THAT(result.error, Not(HasSubstr(kPassword)));
}

TEST_F(CollectorTlsTest, ClientCertificateIsSentAndItsAbsenceNamed) {
  Config config = collector_config(mtls_->url());
  config.prometheus.ca_file = pki_->path("ca.crt");
  config.prometheus.cert_file = pki_->path("client.crt");
  config.prometheus.key_file = pki_->path("client.key");
  std::size_t rows = 0;
  auto result = refresh(config, rows);
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(rows, kNodes);

  config.prometheus.cert_file.clear();
  config.prometheus.key_file.clear();
  result = refresh(config, rows);
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.error, HasSubstr("NETSCORE_PROMETHEUS_CERT_FILE"));

  // A certificate the server's CA did not sign is refused the same way.
  config.prometheus.cert_file = pki_->path("other-ca.crt");
  config.prometheus.key_file = pki_->path("other-ca.key");
  result = refresh(config, rows);
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.error, HasSubstr("NETSCORE_PROMETHEUS_CERT_FILE"));
}

// The binaries, as deployed: a password in the URL, a secret header from a file, a bad then a
// good password; the secrets appear nowhere an operator or a scraper can read.
TEST_F(CollectorTlsTest, SecretsNeverReachTheLogTableOrMetrics) {
  const std::string headers_file = pki_->path("headers");
  std::ofstream(headers_file) << "X-Secret: " << kHeaderSecret << "\n";
  const TableName shm("tls-secrets");
  const std::vector<std::string> common{"NETSCORE_SHM_NAME=" + shm.str(),
                                        "NETSCORE_INTERFACE=eth0",
                                        "NETSCORE_PROMETHEUS_CA_FILE=" + pki_->path("ca.crt"),
                                        "NETSCORE_PROMETHEUS_HEADERS_FILE=" + headers_file,
                                        "NETSCORE_REFRESH_INTERVAL=1h",
                                        "NETSCORE_LOG_LEVEL=trace"};
  std::vector<std::string> bad = common;
  bad.push_back("NETSCORE_PROMETHEUS_URL=" + basic_url("wrong-pw-5d1e"));
  BinaryProcess refused({NETSCORE_COLLECTOR_BINARY, bad, {}, {}, {}});
  EXPECT_TRUE(refused.wait_for_log("prometheus failing", std::chrono::seconds(20)))
      << refused.log();
  refused.stop(std::chrono::seconds(5));
  EXPECT_THAT(refused.log(), HasSubstr("401: Prometheus refused the credentials"));

  std::vector<std::string> good = common;
  good.push_back("NETSCORE_PROMETHEUS_URL=" + basic_url(kPassword));
  BinaryProcess collector({NETSCORE_COLLECTOR_BINARY, good, {}, {}, {}});
  BinaryProcess extender({NETSCORE_EXTENDER_BINARY,
                          {"NETSCORE_SHM_NAME=" + shm.str(), "NETSCORE_LISTEN=127.0.0.1:0",
                           "NETSCORE_LOG_LEVEL=trace"},
                          {},
                          {},
                          {}});
  std::string base;
  ASSERT_TRUE(eventually([&] {
    const std::string log = extender.log();
    const auto at = log.find("listening address=127.0.0.1:");
    if (at == std::string::npos) return false;
    const auto start = at + std::string("listening address=127.0.0.1:").size();
    base = "http://127.0.0.1:" + log.substr(start, log.find(' ', start) - start);
    return true;
  })) << extender.log();
  HttpReply table;
  ASSERT_TRUE(eventually([&] {
    table = http_get(base + "/table");
    return table.status == 200 && table.body.find("node-00005") != std::string::npos;
  })) << table.body
      << collector.log();
  const HttpReply metrics = http_get(base + "/metrics");
  EXPECT_EQ(metrics.status, 200);
  collector.stop(std::chrono::seconds(5));
  extender.stop(std::chrono::seconds(5));
  for (const std::string& text :
       {refused.log(), collector.log(), extender.log(), table.body, metrics.body}) {
    for (const char* secret : {kPassword, "wrong-pw-5d1e", kHeaderSecret})
      EXPECT_THAT(text, Not(HasSubstr(secret)));
  }
}

}  // namespace
}  // namespace netscore::testing
