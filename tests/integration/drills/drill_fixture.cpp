#include "tests/integration/drills/drill_fixture.h"

#include <ctime>
#include <thread>

#include <gmock/gmock.h>

#include "tests/support/netscore_binaries.h"
#include "tests/support/synth.h"

namespace netscore::testing {
namespace {

constexpr unsigned kNodes = 8;
// The idle node, a middle one and the busiest probed one; node-00001 has a counter reset in the
// synthetic data and is left out. In request mode the middle node normalises to about 3, away
// from both the neutral 5 and the ends, so a wrong normalisation cannot pass as real.
constexpr const char* kProbeNames = R"(["node-00000","node-00003","node-00005"])";

}  // namespace

HttpReply Extender::prioritize() const {
  return http_post(base + "/prioritize",
                   std::string(R"({"Pod":{},"Nodes":null,"NodeNames":)") + kProbeNames + "}");
}

HttpReply Extender::filter(const std::string& max_receive_rate) const {
  return http_post(base + "/filter",
                   R"({"Pod":{"metadata":{"annotations":{"netscore.io/max-receive-rate":")" +
                       max_receive_rate + R"("}}},"NodeNames":)" + kProbeNames + "}");
}

void DrillTest::SetUpTestSuite() {
  prometheus_ = std::make_unique<PrometheusProcess>(
      SynthOptions{kNodes, std::time(nullptr) + 3600, 2, 15, SynthLayout::kubernetes_node, {}});
}

void DrillTest::TearDownTestSuite() {
  prometheus_.reset();
}

std::unique_ptr<BinaryProcess> DrillTest::start_collector(
    std::vector<std::string> extra, std::optional<std::uint64_t> file_size_limit) const {
  std::vector<std::string> env = std::move(extra);
  for (std::string e : collector_env(prometheus_url(), shm_.str(), kRefreshInterval))
    env.push_back(std::move(e));
  return std::make_unique<BinaryProcess>(
      BinaryProcess::Options{NETSCORE_COLLECTOR_BINARY, std::move(env), file_size_limit, {}, {}});
}

Extender DrillTest::start_extender(std::vector<std::string> extra) const {
  std::vector<std::string> env = std::move(extra);
  for (std::string e :
       {std::string("NETSCORE_LISTEN=127.0.0.1:0"), "NETSCORE_SHM_NAME=" + shm_.str(),
        std::string("NETSCORE_MAX_AGE=") + kMaxAge, std::string("NETSCORE_LOG_LEVEL=debug")}) {
    env.push_back(std::move(e));
  }
  Extender extender{std::make_unique<BinaryProcess>(BinaryProcess::Options{
                        NETSCORE_EXTENDER_BINARY, std::move(env), {}, {}, {}}),
                    {}};
  extender.base = extender_base_url(*extender.process, kPatience);
  EXPECT_FALSE(extender.base.empty()) << "extender did not log its port:\n"
                                      << extender.process->log();
  return extender;
}

::testing::AssertionResult real_scores(const HttpReply& reply) {
  const auto expected = ::testing::MatchesRegex(
      R"(\[\{"Host":"node-00000","Score":10\},\{"Host":"node-00003","Score":[1-4]\},)"
      R"(\{"Host":"node-00005","Score":0\}\])");
  if (reply.status == 200 && ::testing::Value(reply.body, expected))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "not real scores: status " << reply.status << " body " << reply.body;
}

::testing::AssertionResult neutral_scores(const HttpReply& reply) {
  const std::string expected =
      R"([{"Host":"node-00000","Score":5},{"Host":"node-00003","Score":5},{"Host":"node-00005","Score":5}])";
  if (reply.status == 200 && reply.body == expected) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "not neutral scores: status " << reply.status << " body " << reply.body;
}

}  // namespace netscore::testing
