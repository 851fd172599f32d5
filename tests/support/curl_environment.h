#pragma once

#include <curl/curl.h>
#include <gtest/gtest.h>

// libcurl's global set-up and clean-up around a test program that makes requests with it, as the
// collector's main does around its run. Including this header registers it.
namespace netscore::testing {

class CurlEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { curl_global_init(CURL_GLOBAL_DEFAULT); }
  void TearDown() override { curl_global_cleanup(); }
};

inline const auto* const kCurlEnvironment =
    ::testing::AddGlobalTestEnvironment(new CurlEnvironment);

}  // namespace netscore::testing
