#pragma once

#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "common/score_table_writer.h"

namespace netscore::testing {

// A shared-memory table name unique to this process and the running test, removed on creation
// (a crashed earlier run may have left it) and on destruction, so tests can run in parallel.
class TableName {
 public:
  explicit TableName(std::string_view kind)
      : name_("netscore-" + std::string(kind) + "-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name()) {
    ScoreTableWriter::remove(name_);
  }
  ~TableName() { ScoreTableWriter::remove(name_); }
  TableName(const TableName&) = delete;
  TableName& operator=(const TableName&) = delete;

  const std::string& str() const { return name_; }
  operator const std::string&() const { return name_; }

 private:
  std::string name_;
};

}  // namespace netscore::testing
