#pragma once

#include <filesystem>
#include <string>
#include <system_error>

#include "tests/support/prometheus_process.h"

namespace netscore::sim {

// A new directory under the temporary directory, named prefix-XXXXXX, removed with what it holds
// on every way out, a failed start included. Declare it before the processes that write into it.
struct TempDir {
  explicit TempDir(const std::string& prefix) : path(testing::make_temp_dir(prefix)) {}
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }

  std::string path;
};

}  // namespace netscore::sim
