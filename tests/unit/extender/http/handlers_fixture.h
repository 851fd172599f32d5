#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/config.h"
#include "common/table/score_table_reader.h"
#include "common/table/score_table_writer.h"
#include "extender/http/handlers.h"
#include "tests/support/table_name.h"

namespace netscore::extender {

// The extender's handlers over a scratch table this test publishes, with the prefix "/netscore",
// a one-minute max age and neutral score 5, as the handler, prioritize and cluster view tests share
// them.
class HandlersFixture : public ::testing::Test {
 protected:
  explicit HandlersFixture(std::string_view kind) : name_(kind) {
    config_.shm.name = name_;
    config_.max_age = {std::chrono::seconds(60), "1m"};
    config_.extender.neutral_score = 5;
  }

  // Publishes rows into the table (created on first use) and attaches the handlers to it afresh;
  // false when the attachment does not see the table.
  bool publish_rows(const std::vector<TableEntry>& rows, const SnapshotInfo& info) {
    if (!writer_) writer_.emplace(ScoreTableWriter::Options{.name = name_, .capacity = 64});
    writer_->publish(rows, info);
    attachment_.emplace(ScoreTableReader::Options{name_, 64});
    return attachment_->poll();
  }

  Response call(boost::beast::http::verb method, std::string_view target, std::string body = {},
                std::int64_t now = mono_now_ns()) {
    if (!attachment_) attachment_.emplace(ScoreTableReader::Options{name_, 64});
    return handlers_.handle(method, target, body, *attachment_, now);
  }

  // A NodeNames-mode prioritize request for the given JSON array of names.
  Response prioritize_names(std::string_view names_json, std::int64_t now = mono_now_ns()) {
    return call(
        boost::beast::http::verb::post, "/netscore/prioritize",
        std::string(R"({"Pod":{},"Nodes":null,"NodeNames":)") + std::string(names_json) + "}", now);
  }

  netscore::testing::TableName name_;
  Config config_;
  SharedState shared_{1};
  Handlers handlers_{config_, shared_, 0};
  std::optional<ScoreTableWriter> writer_;
  std::optional<TableAttachment> attachment_;
};

}  // namespace netscore::extender
