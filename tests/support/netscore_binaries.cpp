#include "tests/support/netscore_binaries.h"

#include <string_view>

#include "tests/support/eventually.h"
#include "tests/support/synth.h"

namespace netscore::testing {

std::vector<std::string> collector_env(const std::string& prometheus_url,
                                       const std::string& shm_name,
                                       const std::string& refresh_interval) {
  return {"NETSCORE_PROMETHEUS_URL=" + prometheus_url,
          std::string("NETSCORE_INTERFACE=") + kSynthInterface, "NETSCORE_SHM_NAME=" + shm_name,
          "NETSCORE_REFRESH_INTERVAL=" + refresh_interval, "NETSCORE_LOG_LEVEL=debug"};
}

std::string logged_port(const std::string& log) {
  constexpr std::string_view kListening = "listening address=";
  const auto address = log.find(kListening);
  if (address == std::string::npos) return {};
  const auto end = log.find(' ', address + kListening.size());
  const auto colon = log.rfind(':', end);
  return end != std::string::npos && colon > address ? log.substr(colon + 1, end - colon - 1)
                                                     : std::string();
}

std::string extender_base_url(const BinaryProcess& extender, std::chrono::milliseconds deadline) {
  std::string port;
  if (!eventually([&] { return !(port = logged_port(extender.log())).empty(); }, deadline))
    return {};
  return "http://127.0.0.1:" + port;
}

}  // namespace netscore::testing
