// The extender's /filter and /prioritize handlers end to end (request codec, table lookup, scoring,
// response writer) against a real published table, so lookups hit. The first input byte picks the
// variant (bits: 0 endpoint, 1 scoring mode, 2 stale policy, 3 stale clock, 4 detached table,
// 5 GET instead of POST, 6 URL prefix, 7 render /table afterwards); the rest is the body.
// Asserted: the status follows from whether the codec accepts the body (200, else 400; 405 for
// GET), every 4xx body is {"error":string}; a prioritize answer lists every requested node once, in
// order, with an integer score 0..10 (the neutral score unless the table is fresh); a filter answer
// has the five protocol keys, passes only requested nodes (names or their original Nodes items, in
// request order), fails the rest as unresolvable without an Error, and passes every node when the
// pod sets no ceiling.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <spdlog/spdlog.h>

#include "common/clock.h"
#include "extender/http/handlers.h"
#include "extender/scheduler/filter.h"
#include "extender/scheduler/protocol.h"
#include "tests/fuzz/published_table.h"

namespace {

namespace http = boost::beast::http;
using netscore::extender::ExtenderArgs;
using rapidjson::Value;

constexpr int kNeutral = 5;
constexpr std::int64_t kDayNs = 86'400'000'000'000;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

std::string_view str(const Value& v) {
  return {v.GetString(), v.GetStringLength()};
}

// Compact JSON in member order. Value's operator== looks members up by name, so an item with a
// duplicated key never equals itself; comparing serialisations keeps the byte-for-byte claim.
std::string serialized(const Value& v) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  v.Accept(writer);
  return {out.GetString(), out.GetSize()};
}

// Per-process state, built on the first input. Not thread-safe (libFuzzer runs one input at a
// time).
struct Fixture {
  netscore::fuzz::PublishedTable table;
  netscore::TableAttachment detached{{table.name.str() + "-absent", 64}};
  netscore::extender::SharedState shared{1};
  std::array<netscore::Config, 4> configs;

  Fixture() {
    spdlog::set_level(spdlog::level::off);  // a warning per rejected body would dominate the run
    for (std::size_t i = 0; i < configs.size(); ++i) {
      auto& c = configs[i];
      c.shm.name = table.name;
      c.max_age = {std::chrono::hours(24), "24h"};
      c.extender.neutral_score = kNeutral;
      c.extender.normalisation =
          (i & 1) != 0 ? netscore::Normalisation::cluster : netscore::Normalisation::request;
      c.extender.stale_policy =
          (i & 2) != 0 ? netscore::StalePolicy::fail_closed : netscore::StalePolicy::fail_open;
    }
  }
};

void check_error_body(const std::string& body) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  check(!doc.HasParseError() && doc.IsObject() && doc.MemberCount() == 1 &&
        doc.HasMember("error") && doc["error"].IsString());
}

void check_prioritize(const rapidjson::Document& doc, const ExtenderArgs& args, bool fresh) {
  check(doc.IsArray() && doc.Size() == args.names.size());
  for (rapidjson::SizeType i = 0; i < doc.Size(); ++i) {
    const Value& hp = doc[i];
    check(hp.IsObject() && hp.MemberCount() == 2 && hp.HasMember("Host") && hp.HasMember("Score"));
    check(hp["Host"].IsString() && str(hp["Host"]) == args.names[i]);
    check(hp["Score"].IsInt64() && hp["Score"].GetInt64() >= 0 && hp["Score"].GetInt64() <= 10);
    check(fresh || hp["Score"].GetInt64() == kNeutral);
  }
}

void check_filter(const rapidjson::Document& doc, const ExtenderArgs& args,
                  const std::string& original) {
  check(doc.IsObject() && doc.MemberCount() == 5);
  for (const char* key :
       {"Nodes", "NodeNames", "FailedNodes", "FailedAndUnresolvableNodes", "Error"}) {
    check(doc.HasMember(key));
  }
  check(doc["Error"].IsString() && str(doc["Error"]).find('%') == std::string_view::npos);
  // Every netscore failure is unresolvable (preemption cannot help) and none is an Error.
  check(doc["FailedNodes"].IsObject() && doc["FailedNodes"].MemberCount() == 0);
  check(doc["FailedAndUnresolvableNodes"].IsObject() && doc["Error"].GetStringLength() == 0);
  const Value& failed_nodes = doc["FailedAndUnresolvableNodes"];
  std::size_t passed = 0;
  std::size_t next = 0;  // passing nodes come in request order: a subsequence of the input
  if (args.node_cache_capable) {
    check(doc["Nodes"].IsNull() && doc["NodeNames"].IsArray());
    for (const Value& name : doc["NodeNames"].GetArray()) {
      check(name.IsString());
      while (next < args.names.size() && args.names[next] != str(name)) ++next;
      check(next++ < args.names.size());
      ++passed;
    }
  } else {
    check(doc["NodeNames"].IsNull() && doc["Nodes"].IsObject() && doc["Nodes"].HasMember("items"));
    const Value& items = doc["Nodes"]["items"];
    check(items.IsArray());
    for (const Value& item : items.GetArray()) {
      const std::string passed_item = serialized(item);
      rapidjson::Document echoed;
      for (; next < args.names.size(); ++next) {
        const auto span = args.item_spans[next];
        echoed.Parse(original.data() + span.begin, span.end - span.begin);
        if (!echoed.HasParseError() && serialized(echoed) == passed_item) break;
      }
      check(next++ < args.names.size());
      ++passed;
    }
  }
  for (const auto& failed : failed_nodes.GetObject()) {
    check(failed.value.IsString());
    bool requested = false;
    for (const auto name : args.names) requested = requested || name == str(failed.name);
    check(requested);
  }
  check(passed + failed_nodes.MemberCount() == args.names.size());
  const bool asks = netscore::extender::find_value(args.pod_annotations,
                                                   netscore::extender::kMaxReceiveRateAnnotation) ||
                    netscore::extender::find_value(args.pod_annotations,
                                                   netscore::extender::kRemovedCeilingAnnotation);
  if (!asks) check(passed == args.names.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Fixture fixture;
  if (size == 0) return 0;
  const std::uint8_t variant = data[0];
  const bool filter = (variant & 1) == 0;
  const bool stale_clock = (variant & 8) != 0;
  const bool detached = (variant & 16) != 0;
  const bool get = (variant & 32) != 0;
  const netscore::Config& config = fixture.configs[variant >> 1 & 3];
  // The scheduler's urlPrefix path, which the extender answers under whatever it is.
  const std::string prefix = (variant & 64) != 0 ? "/netscore" : "";
  const std::string original(reinterpret_cast<const char*>(data) + 1, size - 1);

  std::string probe = original;
  ExtenderArgs args;
  const bool accepted = !netscore::extender::parse_extender_args(probe, args);

  netscore::extender::Handlers handlers(config, fixture.shared, 0);
  const auto& table = detached ? fixture.detached : fixture.table.attached;
  const std::int64_t now = netscore::mono_now_ns() + (stale_clock ? kDayNs * 2 : 0);
  const std::string target = prefix + (filter ? "/filter" : "/prioritize");
  std::string body = original;
  const auto r =
      handlers.handle(get ? http::verb::get : http::verb::post, target, body, table, now);

  if (get) {
    check(r.status == 405 && r.allow == "POST");
    check_error_body(r.body);
  } else if (!accepted) {
    check(r.status == 400);
    check_error_body(r.body);
  } else {
    check(r.status == 200 && r.content_type == "application/json");
    rapidjson::Document doc;
    doc.Parse(r.body.data(), r.body.size());
    check(!doc.HasParseError());
    if (filter) {
      check_filter(doc, args, original);
    } else {
      check_prioritize(doc, args, !stale_clock && !detached);
    }
  }
  if ((variant & 128) != 0) {
    std::string none;
    const auto t = handlers.handle(http::verb::get, "/table", none, table, now);
    rapidjson::Document doc;
    doc.Parse(t.body.data(), t.body.size());
    check(t.status == 200 && !doc.HasParseError() && doc.IsObject());
  }
  return 0;
}
