#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// NETSCORE_LABEL_RULES: which pods may go to which nodes, by pod annotation and node label.
//   "type=space:kubernetes.io/role=edge;tier=db:disk=ssd"
// Rule i reads "a pod annotated <pod_key>=<pod_value> may only go to nodes labelled
// <node_key>=<node_value>". A pod must satisfy every rule whose annotation it carries.
// The collector evaluates the node side from the watched Node labels and publishes it as a bit
// mask per node (bit i: rule i holds); the extender evaluates the pod side from the request and,
// when the scheduler sends full Node objects, the node side from those. Pure: thread-safe.
namespace netscore {

struct LabelRule {
  std::string pod_key;
  std::string pod_value;
  std::string node_key;
  std::string node_value;
};

struct LabelRules {
  std::vector<LabelRule> rules;  // at most model::kMaxLabelRules
  // Stable across processes: the collector publishes it with the masks so the extender can tell
  // masks computed from other rules (the two containers configured differently) and ignore them.
  std::uint64_t hash = 0;  // 0 when there are no rules

  bool empty() const { return rules.empty(); }
};

class LabelRuleError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Throws LabelRuleError saying what is wrong with which rule. Keys follow Kubernetes qualified
// names ([prefix/]name, name <= 63 characters of [A-Za-z0-9._-] starting and ending
// alphanumeric, prefix a DNS subdomain); node values follow label values; pod values are any
// text without ':' or ';'.
LabelRules parse_label_rules(std::string_view text);

using KeyValue = std::pair<std::string_view, std::string_view>;

// Bit i set when `labels` hold rule i's node label.
std::uint64_t node_rule_mask(const LabelRules& rules, std::span<const KeyValue> labels);

// Bit i set when `annotations` hold rule i's pod annotation: the rules the pod must satisfy.
std::uint64_t pod_rule_mask(const LabelRules& rules, std::span<const KeyValue> annotations);

// The first rule in `required` that `node_mask` does not satisfy, or -1 when the node passes.
int first_unmet_rule(std::uint64_t required, std::uint64_t node_mask);

// "pods annotated type=space need nodes labelled kubernetes.io/role=edge": a stable reason.
std::string describe_rule(const LabelRule& rule);

}  // namespace netscore
