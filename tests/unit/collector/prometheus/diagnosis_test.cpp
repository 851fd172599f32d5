#include "collector/prometheus/diagnosis.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "collector/prometheus/prometheus_client.h"
#include "common/model/inputs.h"

namespace netscore::collector {
namespace {

TEST(NodeNameTest, RemovesAndCountsNonNodeNames) {
  std::vector<model::NodeSample> samples{
      {.node = "10.0.0.2:9100"}, {.node = "node-a"}, {.node = "10.0.0.3:9100"}};
  const NameFilter filter = remove_non_node_names(samples);
  ASSERT_EQ(samples.size(), 1U);
  EXPECT_EQ(samples[0].node, "node-a");
  EXPECT_EQ(filter.rejected, 2U);
  EXPECT_EQ(filter.example, "10.0.0.2:9100");
  QueryConfig config;
  config.node_label = "instance";
  config.node_labels = {"instance"};
  const std::string text = describe_rejected_names(filter, config);
  EXPECT_NE(text.find("2 series"), std::string::npos);
  EXPECT_NE(text.find("10.0.0.2:9100"), std::string::npos);
  EXPECT_NE(text.find("instance"), std::string::npos);
  EXPECT_EQ(describe_rejected_names({}, config), "");
}

TEST(HeadersFileTest, ReadsNameValueLinesAndNamesABadLineWithoutItsValue) {
  const std::string path = ::testing::TempDir() + "netscore-headers-" + std::to_string(getpid());
  {
    std::ofstream out(path);
    out << "# tenant\nX-Scope-OrgID: tenant1\n\nAuthorization:   Bearer abc \r\n";
  }
  const auto headers = read_headers_file(path);
  ASSERT_EQ(headers.size(), 2U);
  EXPECT_EQ(headers[0], (std::pair<std::string, std::string>{"X-Scope-OrgID", "tenant1"}));
  EXPECT_EQ(headers[1], (std::pair<std::string, std::string>{"Authorization", "Bearer abc"}));
  {
    std::ofstream out(path);
    out << "X-Ok: 1\nsecret-value-without-colon\n";
  }
  try {
    read_headers_file(path);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("NETSCORE_PROMETHEUS_HEADERS_FILE"), std::string::npos);
    EXPECT_NE(what.find("line 2"), std::string::npos);
    EXPECT_EQ(what.find("secret-value"), std::string::npos);
  }
  std::remove(path.c_str());
  EXPECT_THROW(read_headers_file(path), std::runtime_error);
}

}  // namespace
}  // namespace netscore::collector
