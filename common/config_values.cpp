#include "common/config_values.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <optional>

#include "common/prometheus_names.h"
#include "common/quantity.h"

namespace netscore {

bool parse_bool(std::string_view text) {
  if (text == "true" || text == "1" || text == "yes") return true;
  if (text == "false" || text == "0" || text == "no") return false;
  throw BadValue{"true or false"};
}

PromDuration parse_duration(std::string_view text) {
  auto parsed = parse_prom_duration(text);
  if (!parsed) throw BadValue{"a positive duration such as 500ms, 15s, 5m, 1h"};
  return *parsed;
}

std::string parse_nonempty(std::string_view text) {
  if (text.empty()) throw BadValue{"a non-empty string"};
  return std::string(text);
}

std::string parse_interface(std::string_view text) {
  if (text.empty() || text == "!")
    throw BadValue{"a device name or a regex, or ! and one for every device but those"};
  return std::string(text);
}

bool interface_is_regex(std::string_view interface) {
  return interface.find_first_of("|*+?()[]{}^$\\") != std::string_view::npos;
}

std::string transmit_metric_for(std::string_view receive_metric) {
  constexpr std::string_view kReceive = "receive";
  const auto at = receive_metric.find(kReceive);
  if (at == std::string_view::npos) return "node_network_transmit_bytes_total";
  std::string transmit(receive_metric);
  transmit.replace(at, kReceive.size(), "transmit");
  return transmit;
}

// Prometheus label names: [a-zA-Z_][a-zA-Z0-9_]* (the data model's rule), so a label can be
// spliced into PromQL without quoting.
std::string parse_label_name(std::string_view text) {
  if (!is_prometheus_label_name(text)) {
    throw BadValue{"a Prometheus name matching [a-zA-Z_][a-zA-Z0-9_]*"};
  }
  return std::string(text);
}

std::string parse_metric_name(std::string_view text) {
  if (!is_prometheus_metric_name(text)) {
    throw BadValue{"a metric name matching [a-zA-Z_:][a-zA-Z0-9_:]* (recording rules use ':')"};
  }
  return std::string(text);
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const auto end = text.find(separator, start);
    parts.emplace_back(
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

void parse_node_labels(std::string_view text, QueryConfig& out) {
  if (text == "auto") {
    out.node_labels = auto_node_labels();
  } else {
    out.node_labels.clear();
    for (const auto& label : split(text, ',')) {
      try {
        out.node_labels.push_back(parse_label_name(label));
      } catch (const BadValue&) {
        throw BadValue{
            "auto, a label name [a-zA-Z_][a-zA-Z0-9_]* or a comma-separated list of them"};
      }
    }
  }
  out.node_label = out.node_labels.front();
}

// HTTP field names are RFC 9110 tokens; values must not end the header line.
bool is_header_token(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

std::vector<std::pair<std::string, std::string>> parse_headers(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> headers;
  if (text.empty()) return headers;
  for (const auto& item : split(text, ',')) {
    const auto eq = item.find('=');
    const std::string name = item.substr(0, eq);
    if (eq == std::string::npos || !is_header_token(name) ||
        item.find_first_of("\r\n", eq) != std::string::npos) {
      throw BadValue{"Name=value pairs separated by commas, such as X-Scope-OrgID=tenant1"};
    }
    headers.emplace_back(name, item.substr(eq + 1));
  }
  return headers;
}

std::string parse_url(std::string_view text) {
  const bool scheme_ok = text.starts_with("http://") || text.starts_with("https://");
  const auto host_start = text.find("://") + 3;
  if (!scheme_ok || host_start >= text.size() || text[host_start] == '/' ||
      text.find_first_of(" \t\r\n") != std::string_view::npos) {
    throw BadValue{"an http:// or https:// URL with a host, such as http://prometheus:9090"};
  }
  std::string url(text);
  while (url.size() > host_start + 1 && url.back() == '/') url.pop_back();
  return url;
}

HostPort parse_host_port(std::string_view text) {
  const BadValue bad{"host:port such as 127.0.0.1:8888 or [::1]:8888"};
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) throw bad;
  std::string_view host = text.substr(0, colon);
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') throw bad;
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    throw bad;
  }
  const auto port_text = text.substr(colon + 1);
  const std::optional<std::uint16_t> port = parse_number<std::uint16_t>(port_text);
  if (!port) throw bad;
  return {std::string(host), *port};
}

// The scheduler appends "/<verb>" to its urlPrefix; ours is the path part, normalised to
// "" or "/something" without a trailing slash.
std::string parse_url_prefix(std::string_view text) {
  std::string prefix(text);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (!prefix.empty() && prefix.front() != '/') prefix.insert(prefix.begin(), '/');
  if (prefix.find_first_of(" ?#\t\r\n") != std::string::npos)
    throw BadValue{"a URL path such as /netscore"};
  return prefix;
}

std::string parse_shm_name(std::string_view text) {
  const bool ok =
      !text.empty() && text.size() <= 200 && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '_' || c == '.';
      });
  if (!ok || text.front() == '.')
    throw BadValue{"a name of letters, digits, '-', '_' or '.' (no '/')"};
  return std::string(text);
}

unsigned parse_mode(std::string_view text) {
  unsigned mode = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), mode, 8);
  if (ec != std::errc{} || end != text.data() + text.size() || mode > 0777 ||
      (mode & 0600) != 0600) {
    throw BadValue{"an octal file mode with owner read+write, such as 0600 or 0640"};
  }
  return mode;
}

bool is_off(std::string_view text) {
  return text == "off";
}

double parse_rate(std::string_view text) {
  const auto rate = parse_quantity(text);
  if (!rate || *rate < 0 || *rate > 1e15)
    throw BadValue{"bytes per second, a number or a quantity such as 1024, 500k or 10Mi"};
  return *rate;
}

std::size_t parse_bytes(std::string_view text, std::size_t min, std::size_t max) {
  const auto bytes = parse_quantity(text);
  if (!bytes || *bytes < static_cast<double>(min) || *bytes > static_cast<double>(max) ||
      *bytes != std::floor(*bytes)) {
    throw BadValue{"a byte count from " + std::to_string(min) + " to " + std::to_string(max) +
                   ", a number or a quantity such as 32Mi"};
  }
  return static_cast<std::size_t>(*bytes);
}

double parse_speed(std::string_view text) {
  if (text.empty() || is_off(text)) return 0;
  const auto speed = parse_quantity(text);
  if (!speed || *speed <= 0 || *speed > 1e15)
    throw BadValue{"a link speed in bytes/s above 0, such as 125000000 or 125M (1 Gb/s)"};
  return *speed;
}

}  // namespace netscore
