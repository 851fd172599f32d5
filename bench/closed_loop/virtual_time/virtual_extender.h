#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/config.h"
#include "common/table/score_table_reader.h"
#include "extender/http/handlers.h"

// The extender in virtual time: the product's HTTP handlers answer kube-scheduler's prioritize
// call, body and reply as on the wire, from the table the virtual collector writes, at the loop's
// monotonic time. Not emulated: the HTTP server itself (sockets, threads, the attachment's
// polling timer).
namespace netscore::sim {

class VirtualExtender {
 public:
  VirtualExtender(const Config& config, const std::string& table,
                  const std::vector<std::string>& nodes);

  // The extender's scores of every node for the pod (its JSON as the API server serves it), in
  // node order; nullopt when the call failed, as kube-scheduler then ignores the extender.
  std::optional<std::vector<std::int64_t>> prioritize(std::string_view pod_json,
                                                      std::int64_t now_mono_ns);
  // Whether the table may steer pods at `now_mono_ns` (else the scores are neutral).
  bool fresh(std::int64_t now_mono_ns) const;

 private:
  const Config& config_;
  extender::SharedState shared_;
  extender::Handlers handlers_;
  TableAttachment table_;
  std::string node_names_json_;
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace netscore::sim
