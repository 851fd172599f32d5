#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

// What the scale benchmark reads off the processes it runs and off kube-scheduler's /metrics:
// CPU time and peak resident memory from /proc, and quantiles of a Prometheus histogram as
// histogram_quantile() computes them, so that kube-scheduler's own latency figures are read the
// way an operator's dashboard reads them.
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

// The q-quantile of histogram `name` in a text exposition, summed over every series of it whose
// labels contain each of `matchers` (`result="scheduled"`), interpolated linearly within the
// bucket as histogram_quantile() does; nullopt without observations. In the +Inf bucket: the
// highest finite bound.
std::optional<double> histogram_quantile(const std::string& exposition, std::string_view name,
                                         double q, std::string_view matcher = {});
// The number of observations of that histogram (its +Inf bucket).
double histogram_count(const std::string& exposition, std::string_view name,
                       std::string_view matcher = {});

}  // namespace netscore::sim
