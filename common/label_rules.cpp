#include "common/label_rules.h"

#include <algorithm>
#include <bit>

#include <boost/algorithm/string/classification.hpp>
#include <boost/algorithm/string/trim.hpp>

#include "common/kubernetes_names.h"
#include "common/model/table_records.h"

namespace netscore {
namespace {

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Kubernetes label value / qualified-name part: empty or <= 63 of [A-Za-z0-9._-], alphanumeric at
// both ends.
bool label_value_ok(std::string_view v) {
  if (v.empty()) return true;
  if (v.size() > 63 || !alnum(v.front()) || !alnum(v.back())) return false;
  return std::all_of(v.begin(), v.end(),
                     [](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; });
}

bool qualified_name_ok(std::string_view key) {
  const auto slash = key.find('/');
  const std::string_view name = slash == std::string_view::npos ? key : key.substr(slash + 1);
  if (slash != std::string_view::npos && !is_dns_subdomain(key.substr(0, slash))) return false;
  return !name.empty() && label_value_ok(name);
}

std::uint64_t fnv1a(std::uint64_t h, std::string_view s) {
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ULL;
  return (h ^ 0xFF) * 0x100000001B3ULL;  // field separator, so "ab","c" and "a","bc" differ
}

struct Pair {
  std::string_view key;
  std::string_view value;
};

Pair split_pair(std::string_view text, std::string_view side, std::size_t rule) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos) {
    throw LabelRuleError("rule " + std::to_string(rule + 1) + ": " + std::string(side) + " \"" +
                         std::string(text) + "\" is not key=value");
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

// Operators write "a=b:c=d; e=f:g=h" and YAML folds lines: spaces around a rule are not part of it.
std::string_view trim(std::string_view s) {
  return boost::algorithm::trim_copy_if(s, boost::algorithm::is_any_of(" \t\n\r"));
}

bool holds(std::span<const KeyValue> pairs, std::string_view key, std::string_view value) {
  return std::any_of(pairs.begin(), pairs.end(),
                     [&](const KeyValue& kv) { return kv.first == key && kv.second == value; });
}

}  // namespace

LabelRules parse_label_rules(std::string_view text) {
  LabelRules out;
  std::uint64_t hash = 0xCBF29CE484222325ULL;
  for (std::size_t at = 0; at <= text.size();) {
    const auto end = std::min(text.find(';', at), text.size());
    const std::string_view rule_text = trim(text.substr(at, end - at));
    at = end + 1;
    if (rule_text.empty()) continue;  // tolerate "a;;b" and a trailing ';'
    const std::size_t n = out.rules.size();
    if (n == model::kMaxLabelRules) {
      throw LabelRuleError("more than " + std::to_string(model::kMaxLabelRules) + " rules");
    }
    const auto colon = rule_text.find(':');
    if (colon == std::string_view::npos ||
        rule_text.find(':', colon + 1) != std::string_view::npos) {
      throw LabelRuleError("rule " + std::to_string(n + 1) + " \"" + std::string(rule_text) +
                           "\" is not podAnnotation=value:nodeLabel=value");
    }
    const Pair pod = split_pair(rule_text.substr(0, colon), "pod annotation", n);
    const Pair node = split_pair(rule_text.substr(colon + 1), "node label", n);
    if (!qualified_name_ok(pod.key) || !qualified_name_ok(node.key)) {
      throw LabelRuleError("rule " + std::to_string(n + 1) + ": \"" +
                           std::string(qualified_name_ok(pod.key) ? node.key : pod.key) +
                           "\" is not a Kubernetes key ([prefix/]name)");
    }
    if (!label_value_ok(node.value)) {
      throw LabelRuleError("rule " + std::to_string(n + 1) + ": \"" + std::string(node.value) +
                           "\" is not a label value (<= 63 of A-Z a-z 0-9 . _ -)");
    }
    out.rules.push_back({std::string(pod.key), std::string(pod.value), std::string(node.key),
                         std::string(node.value)});
    for (std::string_view part : {pod.key, pod.value, node.key, node.value})
      hash = fnv1a(hash, part);
  }
  out.hash = out.rules.empty() ? 0 : (hash == 0 ? 1 : hash);
  return out;
}

std::uint64_t node_rule_mask(const LabelRules& rules, std::span<const KeyValue> labels) {
  std::uint64_t mask = 0;
  for (std::size_t i = 0; i < rules.rules.size(); ++i) {
    if (holds(labels, rules.rules[i].node_key, rules.rules[i].node_value))
      mask |= std::uint64_t{1} << i;
  }
  return mask;
}

std::uint64_t pod_rule_mask(const LabelRules& rules, std::span<const KeyValue> annotations) {
  std::uint64_t mask = 0;
  for (std::size_t i = 0; i < rules.rules.size(); ++i) {
    if (holds(annotations, rules.rules[i].pod_key, rules.rules[i].pod_value))
      mask |= std::uint64_t{1} << i;
  }
  return mask;
}

int first_unmet_rule(std::uint64_t required, std::uint64_t node_mask) {
  const std::uint64_t unmet = required & ~node_mask;
  return unmet == 0 ? -1 : std::countr_zero(unmet);
}

std::string describe_rule(const LabelRule& rule) {
  return "pods annotated " + rule.pod_key + "=" + rule.pod_value + " need nodes labelled " +
         rule.node_key + "=" + rule.node_value;
}

}  // namespace netscore
