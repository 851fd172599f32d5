// A wall-clock jump cannot make a stale table look fresh, nor a fresh one stale: freshness comes
// from CLOCK_MONOTONIC alone, which the collector and the extender share on one host.
//
// Unit level on purpose. A process-level drill would need libfaketime: it fakes CLOCK_MONOTONIC
// too unless told otherwise, and LD_PRELOADing it into the asan build trips ASan's check that its
// runtime comes first. Here the snapshot's wall and monotonic fields are set independently and
// exactly, so each test disagrees the two clocks by hours, far beyond max-age.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/shared_memory_object.hpp>

#include "common/clock.h"
#include "common/table/score_table_writer.h"
#include "extender/http/handlers.h"
#include "tests/support/table_name.h"

namespace netscore::extender {
namespace {

using ::testing::HasSubstr;
namespace bip = boost::interprocess;
namespace http = boost::beast::http;

constexpr std::int64_t kHourNs = 3'600'000'000'000;
constexpr std::int64_t kHourMs = 3'600'000;
constexpr const char* kProbe = R"({"Pod":{},"Nodes":null,"NodeNames":["a","c"]})";
constexpr const char* kNeutral = R"([{"Host":"a","Score":5},{"Host":"c","Score":5}])";
constexpr const char* kReal = R"([{"Host":"a","Score":10},{"Host":"c","Score":0}])";

class ClockJumpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.shm.name = name_;
    config_.max_age = {std::chrono::seconds(60), "1m"};
    config_.extender.neutral_score = 5;
    const std::int64_t wall = wall_now_ms();
    writer_.publish(std::vector<TableEntry>{{{.raw = 0.0,
                                              .raw_score = 0,
                                              .node_score = 100,
                                              .sample_ms = wall,
                                              .corrected_raw_score = 0,
                                              .corrected_node_score = 100,
                                              .flags = shm::kEntryHasSeries | shm::kEntryValid},
                                             "a"},
                                            {{.raw = 200.0,
                                              .raw_score = 200,
                                              .node_score = 0,
                                              .sample_ms = wall,
                                              .corrected_raw_score = 200,
                                              .corrected_node_score = 0,
                                              .flags = shm::kEntryHasSeries | shm::kEntryValid},
                                             "c"}},
                    wall);
    shm::CollectorStatus status{};
    status.last_success_wall_ms = wall;
    status.last_success_mono_ns = mono_now_ns();
    status.heartbeat_mono_ns = status.last_success_mono_ns;
    writer_.record_status(status);
    ASSERT_TRUE(attachment_.poll());
  }

  // Rewrites the served snapshot's metadata in place, as a collector with other clocks would have.
  void edit_snapshot(const std::function<void(shm::SnapshotMeta&)>& edit) const {
    bip::shared_memory_object object(bip::open_only, name_.str().c_str(), bip::read_write);
    bip::mapped_region region(object, bip::read_write);
    auto* words = static_cast<shm::Word*>(region.get_address());
    const auto& header = *static_cast<const shm::SegmentHeader*>(region.get_address());
    const auto copy = header.snapshot_seq.load() & 1;
    shm::Word* meta_words = words + writer_.layout().snapshot_offset[copy] / 8;
    shm::SnapshotMeta meta{};
    seqlock::load(meta_words, meta);
    edit(meta);
    seqlock::store(meta_words, meta);
  }

  Response call(http::verb method, std::string_view target, std::string body = {}) {
    return handlers_.handle(method, target, body, attachment_, mono_now_ns());
  }

  netscore::testing::TableName name_{"clock"};
  Config config_;
  SharedState shared_{1};
  Handlers handlers_{config_, shared_, 0};
  ScoreTableWriter writer_{{.name = name_, .capacity = 64}};
  TableAttachment attachment_{{.name = name_}};
};

TEST_F(ClockJumpTest, WallTimeJustNowCannotHideAnOldMonotonicPublish) {
  // As if the wall clock had been set back an hour: every wall field reads "now", but the
  // snapshot was published an hour ago by the monotonic clock.
  edit_snapshot([](shm::SnapshotMeta& meta) {
    meta.published_mono_ns -= kHourNs;
    meta.published_wall_ms = wall_now_ms();
  });
  const Response readyz = call(http::verb::get, "/readyz");
  EXPECT_EQ(readyz.status, 503U);
  EXPECT_THAT(readyz.body, HasSubstr("stale"));
  EXPECT_EQ(call(http::verb::post, "/prioritize", kProbe).body, kNeutral);
  EXPECT_THAT(call(http::verb::get, "/table").body, HasSubstr(R"("state":"stale")"));
}

TEST_F(ClockJumpTest, WallTimeLongAgoCannotMakeAFreshPublishStale) {
  // As if the wall clock had jumped forward a day after the publish.
  edit_snapshot([](shm::SnapshotMeta& meta) { meta.published_wall_ms -= 24 * kHourMs; });
  EXPECT_EQ(call(http::verb::get, "/readyz").status, 200U);
  EXPECT_EQ(call(http::verb::post, "/prioritize", kProbe).body, kReal);
  EXPECT_THAT(call(http::verb::get, "/table").body, HasSubstr(R"("state":"fresh")"));
}

}  // namespace
}  // namespace netscore::extender
