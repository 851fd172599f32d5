#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

// What the scale benchmark reads off the processes it runs, from /proc: CPU time, peak resident
// memory, a child by name, a server's TCP connections. (Their /metrics: bench/prometheus_text.)
namespace netscore::sim {

// utime + stime in clock ticks from one /proc/PID/stat line; nullopt when it is not one.
std::optional<long long> stat_cpu_ticks(std::string_view stat);
// utime + stime of a process in seconds; nullopt once it is gone.
std::optional<double> process_cpu_s(pid_t pid);
// The CPU each process spent over a window (`after` − `before`, by name; a process missing from
// either side is left out) in milliseconds per pod bound in it: what each part costs a pod.
// Empty when no pod was bound.
std::map<std::string, double> cpu_ms_per_pod(const std::map<std::string, double>& before_s,
                                             const std::map<std::string, double>& after_s,
                                             unsigned pods);
// The 1-minute load average (/proc/loadavg): how busy the machine was beside a figure.
std::optional<double> load_average_1m();
// VmHWM (peak resident set) in kB; nullopt once it is gone.
std::optional<long> process_peak_rss_kb(pid_t pid);
// The child of this process whose /proc/PID/comm is `comm` (the kernel truncates it to 15
// characters: "netscore-collec"); nullopt when there is none.
std::optional<pid_t> child_by_comm(std::string_view comm);

// TCP connections on the loopback whose local port is `port` (a server's side), from
// /proc/net/tcp: whether a client keeps its connection alive shows as few established and no
// TIME_WAIT ones after many requests.
struct TcpConnections {
  unsigned established = 0;
  unsigned time_wait = 0;
};
TcpConnections server_connections(std::uint16_t port);

}  // namespace netscore::sim
