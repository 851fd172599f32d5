#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string_view>

// What the scale benchmark reads off the processes it runs, from /proc: CPU time, peak resident
// memory, a child by name, a server's TCP connections. (Their /metrics: bench/prometheus_text.)
namespace netscore::sim {

// utime + stime of a process in seconds; nullopt once it is gone.
std::optional<double> process_cpu_s(pid_t pid);
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
