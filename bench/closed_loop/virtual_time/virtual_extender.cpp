#include "bench/closed_loop/virtual_time/virtual_extender.h"

#include <boost/beast/http/verb.hpp>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "bench/closed_loop/placement/host_priorities.h"
#include "extender/scheduler/freshness.h"
#include "extender/scheduler/table_state.h"

namespace netscore::sim {

VirtualExtender::VirtualExtender(const Config& config, const std::string& table,
                                 const std::vector<std::string>& nodes)
    : config_(config), shared_(1), handlers_(config, shared_, 0), table_({.name = table}) {
  table_.poll();
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartArray();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    w.String(nodes[i].c_str());
    index_.emplace(nodes[i], i);
  }
  w.EndArray();
  node_names_json_ = buffer.GetString();
}

std::optional<std::vector<std::int64_t>> VirtualExtender::prioritize(std::string_view pod_json,
                                                                     std::int64_t now_mono_ns) {
  std::string body = R"({"Pod":)";
  body += pod_json;
  body += R"(,"NodeNames":)";
  body += node_names_json_;
  body += '}';
  const extender::Response reply =
      handlers_.handle(boost::beast::http::verb::post, "/prioritize", body, table_, now_mono_ns);
  if (reply.status != 200) return std::nullopt;
  return host_priorities(reply.body, index_);
}

bool VirtualExtender::fresh(std::int64_t now_mono_ns) const {
  return extender::table_health(table_, config_, now_mono_ns).freshness ==
         extender::Freshness::fresh;
}

}  // namespace netscore::sim
