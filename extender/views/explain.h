#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "extender/scheduler/decision_log.h"

// GET /explain: the decisions scheduler/decision_recording.h keeps, read back for one pod.
// Allocates freely (not the scheduler's path). Thread-safe: the log is.
namespace netscore::extender {

struct ExplainQuery {
  std::string pod_namespace;
  std::string pod_name;
  std::string uid;
  std::string node;  // node=NAME: the node's recent placements instead of a pod's decisions
  bool as_text = false;
  std::size_t limit = 10;
  bool limit_given = false;
};

inline constexpr std::size_t kMaxExplainLimit = 100;

// Parses "pod=NAMESPACE/NAME", "uid=UID" or "node=NAME" (alone), optional "format=text" and
// "limit=N" (1..100), percent-decoded. Returns an error message for anything else.
std::optional<std::string> parse_explain_query(std::string_view query, ExplainQuery& out);

std::string render_explain_json(const ExplainQuery& query, std::span<const Decision> decisions);
std::string render_explain_text(const ExplainQuery& query, std::span<const Decision> decisions);

}  // namespace netscore::extender
