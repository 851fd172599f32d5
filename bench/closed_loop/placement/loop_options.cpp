// The loop's parameters as flags, written once for both closed-loop levels.
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <boost/any.hpp>
#include <fmt/format.h>

#include "bench/closed_loop/placement/policy.h"
#include "bench/flags/flags.h"

namespace netscore::sim {
namespace {

struct LoopFlag {
  std::string_view name;
  std::variant<double LoopParams::*, bool LoopParams::*, std::int64_t LoopParams::*,
               std::uint64_t LoopParams::*>
      member;
  std::string_view help;
  bool in_seconds = false;  // takes a unit: 0.5, 500ms
};

constexpr LoopFlag kLoopFlags[] = {
    {"scrape-s", &LoopParams::scrape_s, "Prometheus scrape interval (s)", true},
    {"time-scale", &LoopParams::time_scale,
     "the collector's refresh and window are divided by this"},
    {"cycle-s", &LoopParams::cycle_s, "scheduling cycle per pod (s)", true},
    {"visible-s", &LoopParams::visible_s,
     "an API change (binding, deletion, new pod) to a watch (s)", true},
    {"publish-s", &LoopParams::publish_s,
     "virtual time: one cluster-driven publish of the table, which sets the collector's gap "
     "between them (s)",
     true},
    {"query-s", &LoopParams::query_s,
     "virtual time: what a Prometheus query takes the collector, beside series-s per series "
     "(s)",
     true},
    {"series-s", &LoopParams::series_s,
     "virtual time: what each series a query answers or names adds to it (s)", true},
    {"sample-s", &LoopParams::sample_s, "step of the balance metrics (s)", true},
    {"hot-factor", &LoopParams::hot_factor, "a node above this x the mean is hot"},
    {"hot-utilisation", &LoopParams::hot_utilisation, "a link above this utilisation is hot"},
    {"topology-spread", &LoopParams::topology_spread, "the default PodTopologySpread constraint"},
    {"shipped-weight", &LoopParams::shipped_weight, "extender weight of the shipped configuration"},
    {"tie-seed", &LoopParams::tie_seed, "seed of kube-scheduler's random tie-break"},
    {"descheduler-interval-s", &LoopParams::descheduler_interval_s,
     "virtual time: the descheduler overlay modelled, every this many cluster seconds (75 as "
     "shipped; 0: none)",
     true},
    {"descheduler-per-node", &LoopParams::descheduler_per_node,
     "virtual time: the modelled descheduler's evictionLimits.node, which netscore's nomination "
     "fills (2 as shipped)"},
};

constexpr PodSeries kPodSeries[] = {PodSeries::cadvisor, PodSeries::unlabelled, PodSeries::none};
constexpr std::string_view kPodSeriesHelp =
    "cAdvisor's per-pod traffic series: cadvisor (with namespace and pod), unlabelled "
    "(without: the collector reads none), none";

}  // namespace

std::string_view pod_series_name(PodSeries series) {
  switch (series) {
    case PodSeries::unlabelled:
      return "unlabelled";
    case PodSeries::none:
      return "none";
    case PodSeries::cadvisor:
      break;
  }
  return "cadvisor";
}

// Program_options' hook for --pod-series (found by argument-dependent lookup): one of the names.
void validate(boost::any& out, const std::vector<std::string>& values, PodSeries*, int) {
  const std::string& text = flags::po::validators::get_single_string(values);
  for (const auto series : kPodSeries) {
    if (text == pod_series_name(series)) {
      out = series;
      return;
    }
  }
  throw flags::po::invalid_option_value(text);
}

void add_loop_options(flags::po::options_description& options, LoopParams& params) {
  flags::add_members(options, params, kLoopFlags);
  options.add_options()(
      "pod-series",
      flags::po::value<PodSeries>()->notifier([&params](PodSeries s) { params.pod_series = s; }),
      std::string(kPodSeriesHelp).c_str());
}

std::string loop_help() {
  const LoopParams defaults;
  std::string out;
  for (const auto& flag : kLoopFlags) {
    const std::string value =
        std::visit([&](auto member) { return fmt::format("{}", defaults.*member); }, flag.member);
    out += fmt::format("  --{:<34} {}\n", fmt::format("{}={}", flag.name, value), flag.help);
  }
  out += fmt::format("  --{:<34} {}\n",
                     fmt::format("pod-series={}", pod_series_name(defaults.pod_series)),
                     kPodSeriesHelp);
  return out;
}

}  // namespace netscore::sim
