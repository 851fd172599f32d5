#include "bench/closed_loop/scale/scale_metrics.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace netscore::sim {

std::optional<long long> stat_cpu_ticks(std::string_view stat) {
  // Fields after the command (which may hold spaces and parentheses) start after its last closing
  // parenthesis; utime and stime are fields 14 and 15, the 12th and 13th after it.
  const auto close = stat.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::istringstream rest{std::string(stat.substr(close + 1))};
  std::vector<std::string> fields{std::istream_iterator<std::string>(rest), {}};
  if (fields.size() < 13) return std::nullopt;
  const auto ticks = [](const std::string& field) -> std::optional<long long> {
    long long value = 0;
    const auto* end = field.data() + field.size();
    const auto [at, ec] = std::from_chars(field.data(), end, value);
    if (ec != std::errc{} || at != end) return std::nullopt;
    return value;
  };
  const auto utime = ticks(fields[11]), stime = ticks(fields[12]);
  if (!utime || !stime) return std::nullopt;
  return *utime + *stime;
}

std::optional<double> process_cpu_s(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  const auto ticks = stat_cpu_ticks(stat);
  if (!ticks) return std::nullopt;
  return static_cast<double>(*ticks) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

std::map<std::string, double> cpu_ms_per_pod(const std::map<std::string, double>& before_s,
                                             const std::map<std::string, double>& after_s,
                                             unsigned pods) {
  std::map<std::string, double> out;
  if (pods == 0) return out;
  for (const auto& [name, after] : after_s) {
    if (const auto before = before_s.find(name); before != before_s.end())
      out[name] = 1000 * (after - before->second) / pods;
  }
  return out;
}

std::optional<double> load_average_1m() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  if (!(in >> load)) return std::nullopt;
  return load;
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

}  // namespace netscore::sim
