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
        fmt::format("kube-scheduler configuration: expected one \"{}:\", found {}", key, found));
  }
}

// Drops the top-level `extenders:` key and everything indented under it.
void drop_extenders(std::vector<std::string>& lines) {
  std::vector<std::string> kept;
  bool inside = false;
  for (auto& line : lines) {
    if (line.starts_with("extenders:")) {
      inside = true;
      continue;
    }
    if (inside && !blank_or_comment(line) && indent(line) == 0) inside = false;
    if (!inside) kept.push_back(std::move(line));
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
    drop_extenders(lines);
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
