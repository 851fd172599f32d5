#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/config_types.h"
#include "common/duration.h"
#include "common/parse_number.h"

// The value parsers behind the option table: each turns one NETSCORE_* value into a field or
// throws BadValue naming what was expected.
namespace netscore {

// Thrown by a field parser; the loader adds the variable name and the value.
struct BadValue {
  std::string expected;
};

// A number from min to max (parse_number's rule), or BadValue naming `what` and the range.
template <class T>
T parse_in_range(std::string_view text, T min, T max, const char* what) {
  const std::optional<T> value = parse_number<T>(text);
  if (!value || *value < min || *value > max) {
    throw BadValue{std::string(what) + " from " + std::to_string(min) + " to " +
                   std::to_string(max)};
  }
  return *value;
}

template <class E, std::size_t N>
E parse_enum(std::string_view text, const std::array<std::pair<std::string_view, E>, N>& names) {
  for (const auto& [name, value] : names) {
    if (text == name) return value;
  }
  std::string expected = "one of";
  for (const auto& [name, value] : names) expected += " " + std::string(name);
  throw BadValue{expected};
}

struct HostPort {
  std::string host;
  std::uint16_t port = 0;
};

bool parse_bool(std::string_view text);

PromDuration parse_duration(std::string_view text);

std::string parse_nonempty(std::string_view text);

// NETSCORE_INTERFACE: a device (or regex); a leading '!' selects every device but those.
std::string parse_interface(std::string_view text);
// A regex when it holds a regex operator: a device name never does, and '.' alone (VLAN devices
// such as eth0.100) matches itself either way.
bool interface_is_regex(std::string_view interface);
// The transmit twin of a receive counter: node-exporter's and its recording rules' names differ
// only there (node_network_transmit_bytes_total when `receive_metric` has no "receive").
std::string transmit_metric_for(std::string_view receive_metric);

// Prometheus label names: [a-zA-Z_][a-zA-Z0-9_]* (the data model's rule), so a label can be
// spliced into PromQL without quoting.
std::string parse_label_name(std::string_view text);

std::string parse_metric_name(std::string_view text);

std::vector<std::string> split(std::string_view text, char separator);

void parse_node_labels(std::string_view text, QueryConfig& out);

// HTTP field names are RFC 9110 tokens; values must not end the header line.
bool is_header_token(std::string_view name);

std::vector<std::pair<std::string, std::string>> parse_headers(std::string_view text);

std::string parse_url(std::string_view text);

HostPort parse_host_port(std::string_view text);

// The scheduler appends "/<verb>" to its urlPrefix; ours is the path part, normalised to
// "" or "/something" without a trailing slash.
std::string parse_url_prefix(std::string_view text);

std::string parse_shm_name(std::string_view text);

unsigned parse_mode(std::string_view text);

// Empty: 0 (no speed).
double parse_speed(std::string_view text);
// Bytes/s of a pod's traffic: a number or a quantity (10Mi, 1.5M), 0 allowed.
double parse_rate(std::string_view text);
// A byte count: a number or a quantity (32Mi).
std::size_t parse_bytes(std::string_view text, std::size_t min, std::size_t max);
// The one spelling of "off" every optional setting accepts, beside its older one (0 or empty).
bool is_off(std::string_view text);

}  // namespace netscore
