#include "extender/views/json_writer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "common/table/score_table_layout.h"

namespace netscore::extender {
namespace {

TEST(JsonWriterTest, WritesEveryScalarKind) {
  JsonWriter j;
  j.begin_object();
  const std::string owned = "s\"q";
  j.fields({{"null", nullptr},
            {"bool", true},
            {"int", std::int16_t{-3}},
            {"uint", std::uint32_t{4000000000U}},
            {"double", 0.0},
            {"literal", "x"},
            {"string", owned}});
  j.key("list");
  j.begin_array();
  j.value(std::uint64_t{1});
  j.end_array();
  j.end_object();
  EXPECT_EQ(j.str(),
            R"({"null":null,"bool":true,"int":-3,"uint":4000000000,"double":0.0,"literal":"x",)"
            R"("string":"s\"q","list":[1]})");
}

TEST(JsonWriterTest, PricedByNamesTheFlagsSet) {
  JsonWriter j;
  j.begin_object();
  write_priced_by(j, "by", shm::kEntryPricedByAnnotation | shm::kEntryPricedByAverage);
  write_priced_by(j, "none", shm::kEntryValid);
  j.end_object();
  EXPECT_EQ(j.str(), R"({"by":["annotation","cluster average"],"none":[]})");
}

}  // namespace
}  // namespace netscore::extender
