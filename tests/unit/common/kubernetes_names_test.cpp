#include "common/kubernetes_names.h"

#include <gtest/gtest.h>

#include <string>

namespace netscore {
namespace {

TEST(KubernetesNamesTest, NodeNamesAreDnsSubdomains) {
  EXPECT_TRUE(is_dns_subdomain("node-1"));
  EXPECT_TRUE(is_dns_subdomain("ip-10-0-0-2.eu-west-1.compute.internal"));
  EXPECT_TRUE(is_dns_subdomain("10.0.0.2"));
  EXPECT_FALSE(is_dns_subdomain("10.0.0.2:9100"));
  EXPECT_FALSE(is_dns_subdomain("Node-1"));
  EXPECT_FALSE(is_dns_subdomain("-node"));
  EXPECT_FALSE(is_dns_subdomain("node-"));
  EXPECT_FALSE(is_dns_subdomain("a..b"));
  EXPECT_FALSE(is_dns_subdomain(""));
  EXPECT_FALSE(is_dns_subdomain(std::string(254, 'a')));
  EXPECT_TRUE(is_dns_subdomain(std::string(253, 'a')));
}

TEST(KubernetesNamesTest, EveryDotSeparatedPartStartsAndEndsAlphanumeric) {
  EXPECT_TRUE(is_dns_subdomain("a.b-c.d"));
  EXPECT_FALSE(is_dns_subdomain("a.-b"));
  EXPECT_FALSE(is_dns_subdomain("a-.b"));
  EXPECT_FALSE(is_dns_subdomain(".a"));
  EXPECT_FALSE(is_dns_subdomain("a."));
  EXPECT_FALSE(is_dns_subdomain("a_b"));
}

}  // namespace
}  // namespace netscore
