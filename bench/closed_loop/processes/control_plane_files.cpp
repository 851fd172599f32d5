#include "bench/closed_loop/processes/control_plane_files.h"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace netscore::sim {
namespace {

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    const auto end = text.find('\n');
    lines.emplace_back(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  }
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out.append(line).push_back('\n');
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

std::size_t indent(std::string_view line) {
  return line.find_first_not_of(' ');
}

bool blank_or_comment(std::string_view line) {
  const auto content = trim(line);
  return content.empty() || content.front() == '#';
}

// The line's key when it reads "[- ]key: value" (a list item's first key included).
std::string_view key_of(std::string_view line) {
  auto content = trim(line);
  if (content.starts_with("- ")) content = trim(content.substr(2));
  const auto colon = content.find(':');
  return colon == std::string_view::npos ? std::string_view{} : content.substr(0, colon);
}

// Sets the value of the one line whose key is `key`, keeping its indentation and list dash.
void set_value(std::vector<std::string>& lines, std::string_view key, const std::string& value) {
  std::size_t found = 0;
  for (auto& line : lines) {
    if (blank_or_comment(line) || key_of(line) != key) continue;
    ++found;
    line = line.substr(0, line.find(key) + key.size()) + ": " + value;
  }
  if (found != 1) {
    throw std::runtime_error(
        fmt::format("shipped configuration: expected one \"{}:\", found {}", key, found));
  }
}

// Drops the one line with `key` and the lines indented under it.
void drop_block(std::vector<std::string>& lines, std::string_view key) {
  std::vector<std::string> kept;
  std::optional<std::size_t> dropping;  // the dropped key's indentation
  for (auto& line : lines) {
    if (dropping && (blank_or_comment(line) || indent(line) > *dropping)) continue;
    dropping.reset();
    if (!blank_or_comment(line) && key_of(line) == key) {
      dropping = indent(line);
      continue;
    }
    kept.push_back(std::move(line));
  }
  lines = std::move(kept);
}

std::string yaml_quoted(std::string_view text) {
  return fmt::format("\"{}\"", text);
}

// `["a", "b"]` or `[a, b]` -> {a, b}.
std::vector<std::string> flow_list(std::string_view text) {
  text = trim(text);
  if (text.size() < 2 || text.front() != '[' || text.back() != ']')
    throw std::runtime_error(fmt::format("rbac manifest: expected a [list], got {}", text));
  text = text.substr(1, text.size() - 2);
  std::vector<std::string> items;
  while (!trim(text).empty()) {
    const auto comma = text.find(',');
    auto item = trim(text.substr(0, comma));
    if (item.size() >= 2 && (item.front() == '"' || item.front() == '\'') &&
        item.back() == item.front())
      item = item.substr(1, item.size() - 2);
    items.emplace_back(item);
    text.remove_prefix(comma == std::string_view::npos ? text.size() : comma + 1);
  }
  return items;
}

bool rule_key(std::string_view key) {
  return key == "apiGroups" || key == "resources" || key == "verbs" || key == "resourceNames" ||
         key == "nonResourceURLs";
}

// The document (between "---" lines) that declares `kind: ClusterRole`.
std::vector<std::string> cluster_role_document(std::string_view manifests) {
  std::vector<std::string> document;
  bool is_role = false;
  for (auto& line : split_lines(manifests)) {
    if (line.starts_with("---")) {
      if (is_role) return document;
      document.clear();
      continue;
    }
    if (trim(line) == "kind: ClusterRole" && indent(line) == 0) is_role = true;
    document.push_back(std::move(line));
  }
  if (!is_role) throw std::runtime_error("rbac manifest: no ClusterRole");
  return document;
}

}  // namespace

void require_loopback(std::string_view url) {
  std::string_view rest = url;
  for (const std::string_view scheme : {"http://", "https://"}) {
    if (rest.starts_with(scheme)) rest.remove_prefix(scheme.size());
  }
  constexpr std::string_view kLoopback = "127.0.0.1";
  const bool loopback = rest.size() != url.size() && rest.starts_with(kLoopback) &&
                        (rest.size() == kLoopback.size() || rest[kLoopback.size()] == ':' ||
                         rest[kLoopback.size()] == '/');
  if (!loopback) {
    throw std::invalid_argument(
        fmt::format("{}: the benchmark's control plane talks to 127.0.0.1 only", url));
  }
}

std::string scheduler_config(std::string_view shipped, const SchedulerConfigEdits& edits) {
  std::vector<std::string> lines = split_lines(shipped);
  set_value(lines, "kubeconfig", edits.kubeconfig);
  set_value(lines, "leaderElect", "false");
  if (!edits.extender_url) {
    drop_block(lines, "extenders");
    return join_lines(lines);
  }
  require_loopback(*edits.extender_url);
  set_value(lines, "urlPrefix", yaml_quoted(*edits.extender_url));
  if (edits.weight) set_value(lines, "weight", std::to_string(*edits.weight));
  return join_lines(lines);
}

ClusterRoleSpec cluster_role(std::string_view manifests) {
  ClusterRoleSpec role;
  std::optional<std::size_t> rules_indent;
  bool in_metadata = false;
  for (const auto& line : cluster_role_document(manifests)) {
    if (blank_or_comment(line)) continue;
    const auto key = key_of(line);
    const auto value = trim(std::string_view(line).substr(line.find(':') + 1));
    if (indent(line) == 0) {
      in_metadata = key == "metadata";
      rules_indent = key == "rules" ? std::optional<std::size_t>(0) : std::nullopt;
      continue;
    }
    if (in_metadata && key == "name") role.name = value;
    if (!rules_indent) continue;
    if (!rule_key(key))
      throw std::runtime_error(fmt::format("rbac manifest: unexpected rule line \"{}\"", line));
    if (trim(line).starts_with("- ")) role.rules.emplace_back();
    if (role.rules.empty())
      throw std::runtime_error(fmt::format("rbac manifest: \"{}\" outside a rule", line));
    role.rules.back()[std::string(key)] = flow_list(value);
  }
  if (role.name.empty() || role.rules.empty())
    throw std::runtime_error("rbac manifest: a ClusterRole without a name or rules");
  return role;
}

std::string descheduler_policy(std::string_view shipped, const DeschedulerEdits& edits) {
  if (!edits.prometheus_url.starts_with("https://127.0.0.1"))
    throw std::invalid_argument(edits.prometheus_url +
                                ": the benchmark's Prometheus is https on 127.0.0.1");
  std::vector<std::string> lines = split_lines(shipped);
  set_value(lines, "url", edits.prometheus_url);
  set_value(lines, "minPodAge", edits.min_pod_age);
  if (!edits.label_selector) drop_block(lines, "labelSelector");
  return join_lines(lines);
}

std::string yaml_value(std::string_view text, std::string_view key) {
  std::optional<std::string> found;
  for (const auto& line : split_lines(text)) {
    if (blank_or_comment(line) || key_of(line) != key) continue;
    if (found) throw std::runtime_error(fmt::format("more than one \"{}:\"", key));
    found = std::string(trim(std::string_view(line).substr(line.find(':') + 1)));
  }
  if (!found) throw std::runtime_error(fmt::format("no \"{}:\"", key));
  return *found;
}

std::string container_flag(std::string_view manifest, std::string_view flag) {
  const std::string prefix = "--" + std::string(flag) + "=";
  std::optional<std::string> found;
  for (const auto& line : split_lines(manifest)) {
    auto content = trim(line);
    if (!content.starts_with("- ")) continue;
    content = trim(content.substr(2));
    if (!content.starts_with(prefix)) continue;
    if (found) throw std::runtime_error(fmt::format("more than one {}", prefix));
    found = std::string(content.substr(prefix.size()));
  }
  if (!found) throw std::runtime_error(fmt::format("no {} argument", prefix));
  return *found;
}

std::vector<ManifestDocument> manifest_documents(std::string_view manifests) {
  std::vector<ManifestDocument> out;
  const auto finish = [&](std::vector<std::string>& lines) {
    ManifestDocument document;
    bool in_metadata = false;
    for (const auto& line : lines) {
      if (blank_or_comment(line)) continue;
      const auto key = key_of(line);
      const auto value = std::string(trim(std::string_view(line).substr(line.find(':') + 1)));
      if (indent(line) == 0) {
        in_metadata = key == "metadata";
        if (key == "kind") document.kind = value;
      } else if (in_metadata && indent(line) == 2 && key == "namespace") {
        document.ns = value;
      }
    }
    if (!document.kind.empty()) {
      document.yaml = join_lines(lines);
      out.push_back(std::move(document));
    }
    lines.clear();
  };
  std::vector<std::string> lines;
  for (auto& line : split_lines(manifests)) {
    if (line.starts_with("---")) {
      finish(lines);
      continue;
    }
    lines.push_back(std::move(line));
  }
  finish(lines);
  return out;
}

std::string collection_path(const ManifestDocument& document) {
  const auto namespaced = [&](std::string_view prefix, std::string_view resource) {
    if (document.ns.empty())
      throw std::runtime_error(fmt::format("a {} without a namespace", document.kind));
    return fmt::format("{}/namespaces/{}/{}", prefix, document.ns, resource);
  };
  constexpr std::string_view kRbac = "/apis/rbac.authorization.k8s.io/v1";
  if (document.kind == "Namespace") return "/api/v1/namespaces";
  if (document.kind == "ServiceAccount") return namespaced("/api/v1", "serviceaccounts");
  if (document.kind == "ClusterRole") return std::string(kRbac) + "/clusterroles";
  if (document.kind == "ClusterRoleBinding") return std::string(kRbac) + "/clusterrolebindings";
  if (document.kind == "Role") return namespaced(kRbac, "roles");
  if (document.kind == "RoleBinding") return namespaced(kRbac, "rolebindings");
  throw std::runtime_error(fmt::format("no collection known for kind {}", document.kind));
}

std::string rules_document(std::string_view print_rules_output) {
  const auto start =
      print_rules_output.starts_with("groups:\n") ? 0 : print_rules_output.find("\ngroups:\n");
  const auto end = print_rules_output.find("\n---\n", start);
  if (start == std::string_view::npos || end == std::string_view::npos)
    throw std::runtime_error("--print-rules printed no rule group: " +
                             std::string(print_rules_output.substr(0, 500)));
  const auto from = start == 0 ? 0 : start + 1;
  return std::string(print_rules_output.substr(from, end + 1 - from));
}

std::string kubeconfig(const std::string& server, const std::string& ca_file,
                       const std::string& token) {
  require_loopback(server);
  return fmt::format(
      "apiVersion: v1\n"
      "kind: Config\n"
      "clusters:\n"
      "  - name: bench\n"
      "    cluster:\n"
      "      server: {}\n"
      "      certificate-authority: {}\n"
      "users:\n"
      "  - name: bench\n"
      "    user:\n"
      "      token: {}\n"
      "contexts:\n"
      "  - name: bench\n"
      "    context:\n"
      "      cluster: bench\n"
      "      user: bench\n"
      "current-context: bench\n",
      server, ca_file, token);
}

std::string token_auth_line(const std::string& token, const std::string& user,
                            const std::vector<std::string>& groups) {
  if (groups.empty()) return fmt::format("{},{},{}\n", token, user, user);
  std::string joined;
  for (const auto& group : groups) joined += (joined.empty() ? "" : ",") + group;
  return fmt::format("{},{},{},\"{}\"\n", token, user, user, joined);
}

}  // namespace netscore::sim
