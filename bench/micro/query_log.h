#pragma once

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <string>
#include <vector>

#include <rapidjson/document.h>

// Prometheus' query log (query_log_file), as the benchmarks read what Prometheus itself spent.
namespace netscore::bench {

// Prometheus' own evaluation time (stats.timings.evalTotalTime, ms) of every logged query with
// this text, in the order it was asked.
inline std::vector<double> logged_eval_ms(const std::string& log_file, const std::string& promql) {
  std::ifstream in(log_file);
  std::vector<double> out;
  for (std::string line; std::getline(in, line);) {
    rapidjson::Document entry;
    entry.Parse(line.data(), line.size());
    if (entry.HasParseError() || !entry.IsObject() || !entry.HasMember("params") ||
        !entry.HasMember("stats"))
      continue;
    const auto& query = entry["params"]["query"];
    if (query.IsString() && promql == query.GetString())
      out.push_back(entry["stats"]["timings"]["evalTotalTime"].GetDouble() * 1000);
  }
  return out;
}

// Both directions' logged evaluation times summed, the last `rounds` of them (a query without a
// transmit half alone); empty when the log holds fewer.
inline std::vector<double> both_directions(const std::string& log, const std::string& receive,
                                           const std::string& transmit, std::size_t rounds) {
  std::vector<double> rx = logged_eval_ms(log, receive);
  const std::vector<double> tx =
      transmit.empty() ? std::vector<double>(rx.size()) : logged_eval_ms(log, transmit);
  if (rx.size() < rounds || tx.size() < rounds) return {};
  std::vector<double> out;
  for (std::size_t i = 0; i < rounds; ++i)
    out.push_back(rx[rx.size() - rounds + i] + tx[tx.size() - rounds + i]);
  return out;
}

inline double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace netscore::bench
