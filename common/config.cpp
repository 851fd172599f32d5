#include "common/config.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "common/config_options.h"
#include "common/config_values.h"

extern char** environ;

namespace netscore {
namespace {

bool used_by(const Option& option, Component component) {
  return (option.used_by & static_cast<unsigned>(component)) != 0;
}

std::string flag_for(std::string_view env) {
  std::string flag = "--";
  for (char c : env.substr(std::string_view("NETSCORE_").size())) {
    flag += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return flag;
}

void apply(const Option& option, Config& config, std::string_view value, std::string_view source) {
  try {
    option.apply(config, value);
  } catch (const BadValue& bad) {
    throw ConfigError("invalid " + std::string(source) + "=\"" + std::string(value) +
                      "\": expected " + bad.expected);
  }
}

constexpr std::string_view kServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount/";

// In-cluster discovery as client-go's InClusterConfig does it; an explicit URL wins.
void resolve_kube(Config& config, const Environment& env) {
  KubeConfig& kube = config.kube;
  const auto get = [&](const char* name) {
    const auto it = env.find(name);
    return it == env.end() ? std::string() : it->second;
  };
  const std::string host = get("KUBERNETES_SERVICE_HOST");
  const std::string port = get("KUBERNETES_SERVICE_PORT");
  const bool in_cluster = !host.empty() && !port.empty();
  if (kube.url.empty() && !in_cluster) return;
  if (kube.url.empty()) {
    const bool ipv6 = host.find(':') != std::string::npos;
    kube.url = "https://" + (ipv6 ? "[" + host + "]" : host) + ":" + port;
    if (kube.token_file.empty()) kube.token_file = std::string(kServiceAccountDir) + "token";
    if (kube.ca_file.empty()) kube.ca_file = std::string(kServiceAccountDir) + "ca.crt";
  }
}

}  // namespace

namespace {

const Option* find_option(std::string_view env) {
  const auto it = std::find_if(config_options().begin(), config_options().end(),
                               [&](const Option& o) { return o.env == env; });
  return it == config_options().end() ? nullptr : &*it;
}

const Retired* find_retired(std::string_view name, bool as_flag) {
  const auto it =
      std::find_if(retired_options().begin(), retired_options().end(), [&](const Retired& r) {
        return as_flag ? flag_for(r.old_name) == name : r.old_name == name;
      });
  return it == retired_options().end() ? nullptr : &*it;
}

// One setting read from the environment or a flag, applied once all are known.
struct Assignment {
  const Option* option;
  std::string value;
  std::string source;  // the variable or flag, as the user wrote it
};

std::string deprecation(const Retired& r, bool as_flag) {
  const std::string name = as_flag ? flag_for(r.old_name) : std::string(r.old_name);
  if (r.current.empty()) return name + " is retired and ignored: " + std::string(r.rule);
  return name + " is deprecated: use " + (as_flag ? flag_for(r.current) : std::string(r.current));
}

// What the retired settings decided, from the settings that decide it now.
void derive_settings(Config& config) {
  constexpr int kRefreshesPerRecheck = 40;
  constexpr int kConnectTimeoutShare = 5;
  config.recheck_interval = prom_duration(kRefreshesPerRecheck * config.refresh_interval.value);
  config.prometheus.connect_timeout =
      prom_duration(config.prometheus.timeout.value / kConnectTimeoutShare);
  config.query.interface_regex = interface_is_regex(config.query.interface);
  config.query.transmit_metric = transmit_metric_for(config.query.metric);
  config.extender.max_connections = kConnectionsPerThread * config.extender.threads;
}

}  // namespace

Config load_config(Component component, const std::vector<std::string>& args,
                   const Environment& env, std::vector<std::string>* warnings) {
  Config config;
  for (const auto& option : config_options())
    apply(option, config, option.default_value, option.env);

  std::vector<Assignment> assignments;
  // Not a structured binding: clang 14 (the fuzz preset) cannot capture one in the lambda.
  for (const auto& variable : env) {
    const std::string& name = variable.first;
    const std::string& value = variable.second;
    if (!name.starts_with("NETSCORE_")) continue;
    if (const Retired* retired = find_retired(name, false)) {
      if (warnings) warnings->push_back(deprecation(*retired, false));
      if (retired->current.empty()) continue;
      const auto current = env.find(retired->current);
      if (current != env.end() && current->second != value) {
        throw ConfigError(name + " and " + std::string(retired->current) +
                          " disagree: the first is the old name of the second; keep one");
      }
      if (current != env.end()) continue;
      const Option* option = find_option(retired->current);
      if (used_by(*option, component)) assignments.push_back({option, value, name});
      continue;
    }
    const Option* option = find_option(name);
    if (option == nullptr) {
      // Not fatal: Kubernetes injects NETSCORE_PORT, NETSCORE_SERVICE_HOST... for a Service named
      // "netscore", and a pod shares one env list between both containers.
      if (warnings) warnings->push_back("ignoring unknown variable " + name);
      continue;
    }
    if (used_by(*option, component)) assignments.push_back({option, value, name});
  }

  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") throw HelpRequested("--help");
    const auto eq = arg.find('=');
    const std::string flag = arg.substr(0, eq);
    const Retired* retired = find_retired(flag, true);
    const bool ignored = retired && retired->current.empty();
    const auto it =
        std::find_if(config_options().begin(), config_options().end(), [&](const Option& o) {
          return used_by(o, component) &&
                 (retired ? o.env == retired->current : flag_for(o.env) == flag);
        });
    if (it == config_options().end() && !ignored)
      throw ConfigError("unknown flag " + flag + " (see --help)");
    if (retired && warnings) warnings->push_back(deprecation(*retired, true));
    std::string value;
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      throw ConfigError("flag " + flag + " needs a value (" + flag + "=VALUE)");
    }
    if (!ignored) assignments.push_back({&*it, value, flag});
  }

  // The profile first: it sets other options, which the variables and flags given may override.
  std::stable_partition(assignments.begin(), assignments.end(),
                        [](const Assignment& a) { return a.option->env == kProfileOption; });
  for (const Assignment& a : assignments) apply(*a.option, config, a.value, a.source);
  derive_settings(config);

  if (component == Component::collector && config.query.mode == QueryMode::custom &&
      config.query.custom_template.empty()) {
    throw ConfigError(
        "invalid NETSCORE_QUERY_TEMPLATE=\"\": expected a PromQL template when "
        "NETSCORE_QUERY_MODE=custom");
  }
  if (component == Component::collector) resolve_kube(config, env);
  return config;
}

std::vector<VariableDoc> documented_variables(Component component) {
  std::vector<VariableDoc> docs;
  for (const auto& option : config_options()) {
    if (!used_by(option, component)) continue;
    std::string help(option.help);
    for (const Retired& r : retired_options()) {
      if (r.current == option.env)
        help += " (formerly " + std::string(r.old_name) + ", still read with a warning)";
    }
    docs.push_back({.env = std::string(option.env),
                    .flag = flag_for(option.env),
                    .default_value = std::string(option.default_value),
                    .help = std::move(help),
                    .when = std::string(option.when),
                    .essential = option.tier == Tier::essential});
  }
  // Essential first, each group in the table's order.
  std::stable_partition(docs.begin(), docs.end(), [](const VariableDoc& d) { return d.essential; });
  return docs;
}

std::vector<RetiredDoc> retired_variables() {
  std::vector<RetiredDoc> docs;
  for (const Retired& r : retired_options()) {
    docs.push_back({.env = std::string(r.old_name),
                    .current = std::string(r.current),
                    .rule = std::string(r.rule)});
  }
  return docs;
}

std::chrono::milliseconds pod_traffic_interval(const Config& config) {
  constexpr int kRefreshesPerPodTrafficRead = 4;
  return kRefreshesPerPodTrafficRead * config.refresh_interval.value;
}

PromDuration pod_traffic_recent_range(const Config& config) {
  constexpr int kRefreshesPerRecentRange = 4;
  constexpr std::chrono::milliseconds kShortestRecentRange = std::chrono::minutes(1);
  const auto range = std::min(
      std::max(kRefreshesPerRecentRange * config.refresh_interval.value, kShortestRecentRange),
      config.query.time_range.value);
  return {.value = range, .text = std::to_string(range.count()) + "ms"};
}

PromDuration rebalance_window(const Config& config) {
  constexpr int kRefreshesPerRebalanceWindow = 4;
  if (config.rebalance.window) return *config.rebalance.window;
  return prom_duration(std::min(kRefreshesPerRebalanceWindow * config.refresh_interval.value,
                                config.query.time_range.value));
}

PromDuration rebalance_rest(const Config& config) {
  constexpr int kRefreshesPerRest = 20;
  return prom_duration(kRefreshesPerRest * config.refresh_interval.value);
}

std::string help_text(Component component, std::string_view program) {
  std::ostringstream out;
  out << "usage: " << program << " [--flag=VALUE ...]\n"
      << "Every setting is an environment variable; the matching flag overrides it.\n\n";
  bool first = true;
  bool essential = false;
  for (const auto& doc : documented_variables(component)) {
    if (first || doc.essential != essential) {
      out << (first ? "" : "\n")
          << (doc.essential ? "Essential settings (the ones deployments change):\n"
                            : "Advanced settings (each for the situation it names):\n");
      first = false;
      essential = doc.essential;
    }
    out << "  " << doc.env << " (" << doc.flag << ")\n      default \"" << doc.default_value
        << "\": " << doc.help << "\n      change: " << doc.when << "\n";
  }
  return out.str();
}

Config load_config_or_exit(Component component, int argc, char** argv) {
  const std::string program = argc > 0 ? argv[0] : "netscore";
  Environment env;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    const auto eq = entry.find('=');
    if (eq != std::string_view::npos) env.emplace(entry.substr(0, eq), entry.substr(eq + 1));
  }
  std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
  std::vector<std::string> warnings;
  try {
    Config config = load_config(component, args, env, &warnings);
    for (const auto& w : warnings) std::cerr << program << ": warning: " << w << "\n";
    return config;
  } catch (const HelpRequested&) {
    std::cout << help_text(component, program);
    std::exit(0);
  } catch (const ConfigError& e) {
    std::cerr << program << ": " << e.what() << "\n";
    std::exit(2);
  }
}

}  // namespace netscore
