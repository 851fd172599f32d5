#include "bench/closed_loop/scale_metrics.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace netscore::sim {
namespace {

std::optional<double> number(std::string_view text) {
  if (text == "+Inf") return std::numeric_limits<double>::infinity();
  double value = 0;
  const auto parsed = std::from_chars(text.data(), text.data() + text.size(), value);
  if (parsed.ec != std::errc{}) return std::nullopt;
  return value;
}

// Cumulative counts by upper bound, summed over the matching series.
std::map<double, double> buckets(const std::string& exposition, std::string_view name,
                                 std::string_view matcher) {
  std::map<double, double> out;
  const std::string prefix = std::string(name) + "_bucket{";
  std::istringstream lines(exposition);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.starts_with(prefix)) continue;
    const auto close = line.rfind('}');
    if (close == std::string::npos) continue;
    const std::string_view labels = std::string_view(line).substr(0, close);
    if (!matcher.empty() && labels.find(matcher) == std::string_view::npos) continue;
    // Not a bare `le="`: other label names end in "le" too (profile).
    auto le = labels.find(",le=\"");
    if (le == std::string_view::npos) le = labels.find("{le=\"");
    if (le == std::string_view::npos) continue;
    le += 5;
    const auto bound = number(labels.substr(le, labels.find('"', le) - le));
    const auto count = number(std::string_view(line).substr(close + 2));
    if (bound && count) out[*bound] += *count;
  }
  return out;
}

}  // namespace

std::optional<double> process_cpu_s(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  // Fields after the command (which may hold spaces) start at its closing parenthesis; utime and
  // stime are fields 14 and 15, the 12th and 13th after it.
  std::istringstream rest(stat.substr(stat.rfind(')') + 2));
  std::vector<std::string> fields{std::istream_iterator<std::string>(rest), {}};
  if (fields.size() < 13) return std::nullopt;
  const double ticks = std::stod(fields[11]) + std::stod(fields[12]);
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

std::optional<long> process_peak_rss_kb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("VmHWM:")) return std::stol(line.substr(6));
  }
  return std::nullopt;
}

std::optional<pid_t> child_by_comm(std::string_view comm) {
  const pid_t self = ::getpid();
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ignored)) {
    pid_t pid = 0;
    const std::string name = entry.path().filename();
    if (std::from_chars(name.data(), name.data() + name.size(), pid).ec != std::errc{}) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat;
    if (!std::getline(in, stat)) continue;
    const auto open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    std::string state;
    pid_t parent = 0;
    rest >> state >> parent;
    if (parent == self && std::string_view(stat).substr(open + 1, close - open - 1) == comm)
      return pid;
  }
  return std::nullopt;
}

TcpConnections server_connections(std::uint16_t port) {
  TcpConnections out;
  std::ifstream in("/proc/net/tcp");
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    // "  0: 0100007F:1F90 0100007F:A2C4 01 ...": local address:port, remote, state (hex).
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    fields >> slot >> local >> remote >> state;
    const auto colon = local.find(':');
    if (colon == std::string::npos) continue;
    unsigned local_port = 0;
    std::from_chars(local.data() + colon + 1, local.data() + local.size(), local_port, 16);
    if (local_port != port) continue;
    if (state == "01") ++out.established;
    if (state == "06") ++out.time_wait;
  }
  return out;
}

std::optional<double> histogram_quantile(const std::string& exposition, std::string_view name,
                                         double q, std::string_view matcher) {
  const auto counts = buckets(exposition, name, matcher);
  if (counts.empty() || counts.rbegin()->second <= 0) return std::nullopt;
  const double rank = q * counts.rbegin()->second;
  double lower = 0, below = 0;
  for (const auto& [bound, cumulative] : counts) {
    if (cumulative >= rank) {
      if (bound == std::numeric_limits<double>::infinity()) return lower;
      const double in_bucket = cumulative - below;
      return in_bucket <= 0 ? bound : lower + (bound - lower) * (rank - below) / in_bucket;
    }
    lower = bound;
    below = cumulative;
  }
  return lower;
}

double histogram_count(const std::string& exposition, std::string_view name,
                       std::string_view matcher) {
  const auto counts = buckets(exposition, name, matcher);
  return counts.empty() ? 0 : counts.rbegin()->second;
}

}  // namespace netscore::sim
