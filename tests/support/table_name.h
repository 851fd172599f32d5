#pragma once

#include <gtest/gtest.h>

#include <string_view>

#include "tests/support/scratch_table.h"

namespace netscore::testing {

// A scratch table named after the running test as well, so a table left by a crash says which
// test made it.
class TableName : public ScratchTable {
 public:
  explicit TableName(std::string_view kind)
      : ScratchTable(kind, ::testing::UnitTest::GetInstance()->current_test_info()->name()) {}
};

}  // namespace netscore::testing
