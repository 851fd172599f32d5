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

inline double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace netscore::bench
