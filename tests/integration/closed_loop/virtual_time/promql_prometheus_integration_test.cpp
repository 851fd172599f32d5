// The simulator's rate/increase/sum_over_time equal a real Prometheus' (Debian's 2.42) to the
// last bit: counters backfilled with irregular scrapes, a missed scrape, a counter reset, a
// counter starting near 0, evaluated on samples, just after them, and with a window edge exactly
// on a sample and one millisecond past it.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "bench/closed_loop/virtual_time/promql.h"
#include "tests/support/http_client.h"
#include "tests/support/prometheus_process.h"

namespace netscore::sim {
namespace {

using netscore::testing::http_get;
using netscore::testing::PrometheusProcess;

struct Counter {
  std::string metric;  // c_total: counters; g: a gauge
  std::string name;
  Series series;
};

// What promtool stores for an OpenMetrics timestamp: int64(ParseFloat(text) * 1000).
std::int64_t stored_ms(const std::string& seconds_text) {
  return static_cast<std::int64_t>(std::strtod(seconds_text.c_str(), nullptr) * 1000);
}

std::string seconds_text(std::int64_t ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%lld.%03lld", static_cast<long long>(ms / 1000),
                static_cast<long long>(ms % 1000));
  return text;
}

// Scrape intervals around 15 s, one missed scrape (30 s) per cycle; increments with fractions.
Series irregular(std::int64_t start_ms, double first, int samples, int reset_at) {
  static constexpr std::int64_t kIntervals[] = {15000, 14700, 15350, 16010, 13990, 30000, 15001};
  Series s;
  std::int64_t t = start_ms;
  double v = first;
  for (int i = 0; i < samples; ++i) {
    if (i == reset_at) v = 1000.25;
    s.t_ms.push_back(t);
    s.v.push_back(v);
    t += kIntervals[i % std::size(kIntervals)];
    v += (i % 5 + 1) * 1234.5678 + 0.001 * i;
  }
  return s;
}

// Every 10 s: a window starting 11 s before the first sample puts the start gap exactly on the
// threshold 10 x 1.1, which rounds to 11: not below it, so half an interval.
Series regular(std::int64_t start_ms) {
  Series s;
  for (int i = 0; i < 100; ++i) {
    s.t_ms.push_back(start_ms + i * 10000);
    s.v.push_back(5e6 + i * 1500.5);
  }
  return s;
}

// Values that cancel: summed naively the small ones are lost.
Series cancelling(std::int64_t start_ms) {
  static constexpr double kValues[] = {1e16, 1, 1, -1e16, 0.5};
  Series s;
  for (int i = 0; i < 60; ++i) {
    s.t_ms.push_back(start_ms + i * 15000);
    s.v.push_back(kValues[i % std::size(kValues)]);
  }
  return s;
}

Series sparse_near_zero(std::int64_t start_ms) {
  Series s;
  for (int i = 0; i < 30; ++i) {
    s.t_ms.push_back(start_ms + i * 60000 + (i >= 15 ? 300000 : 0));  // a 6-minute gap
    s.v.push_back(3.25 + i * 977.125);
  }
  return s;
}

std::string url_encoded(const std::string& text) {
  std::string out;
  char hex[4];
  for (const unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

// RFC 3339 with milliseconds: a float time parameter could be cut to the millisecond below.
std::string rfc3339(std::int64_t ms) {
  const std::time_t seconds = ms / 1000;
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03lldZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>(ms % 1000));
  return text;
}

class PromqlPrometheusTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::int64_t start_ms = (std::time(nullptr) - 3 * 3600) * 1000 + 123;
    counters_ = {{"c_total", "irregular", irregular(start_ms, 2.5e9 + 0.75, 120, -1)},
                 {"c_total", "reset", irregular(start_ms + 4321, 7.0e8, 120, 60)},
                 {"c_total", "from_zero", irregular(start_ms + 777, 0, 120, -1)},
                 {"c_total", "near_zero", sparse_near_zero(start_ms + 2500)},
                 {"c_total", "regular", regular(start_ms + 1000)},
                 {"g", "cancelling", cancelling(start_ms + 3000)}};
    dir_ = netscore::testing::make_temp_dir("promql-closed-loop");
    const std::string file = dir_ + "/counters.om";
    std::ofstream out(file);
    char value[64];
    for (auto& counter : counters_) {
      if (&counter == &counters_.front()) out << "# HELP c Test counters.\n# TYPE c counter\n";
      if (counter.metric == "g") out << "# HELP g A test gauge.\n# TYPE g gauge\n";
      for (std::size_t i = 0; i < counter.series.v.size(); ++i) {
        const auto text = seconds_text(counter.series.t_ms[i]);
        std::snprintf(value, sizeof value, "%.17g", counter.series.v[i]);
        out << counter.metric << "{series=\"" << counter.name << "\"} " << value << ' ' << text
            << '\n';
        counter.series.t_ms[i] = stored_ms(text);
      }
    }
    out << "# EOF\n";
    out.close();
    prometheus_ = std::make_unique<PrometheusProcess>(file);
  }
  static void TearDownTestSuite() {
    prometheus_.reset();
    std::remove((dir_ + "/counters.om").c_str());
    std::remove(dir_.c_str());
  }

  // The instant query's result: nullopt for an empty vector.
  static std::optional<double> query(const std::string& promql, std::int64_t eval_ms,
                                     rapidjson::Document& doc) {
    const auto reply = http_get(prometheus_->url() + "/api/v1/query?query=" + url_encoded(promql) +
                                "&time=" + url_encoded(rfc3339(eval_ms)));
    EXPECT_EQ(reply.status, 200) << promql << ": " << reply.body;
    doc.Parse(reply.body.c_str());
    EXPECT_FALSE(doc.HasParseError()) << reply.body;
    const auto& result = doc["data"]["result"];
    if (result.Empty()) return std::nullopt;
    EXPECT_EQ(result.Size(), 1U) << reply.body;
    return std::strtod(result[0]["value"][1].GetString(), nullptr);
  }

  static inline std::string dir_;
  static inline std::vector<Counter> counters_;
  static inline std::unique_ptr<PrometheusProcess> prometheus_;
};

TEST_F(PromqlPrometheusTest, PrometheusHoldsTheSamplesAsWritten) {
  rapidjson::Document doc;
  for (const auto& counter : counters_) {
    SCOPED_TRACE(counter.name);
    const auto end = counter.series.t_ms.back();
    const auto reply =
        http_get(prometheus_->url() + "/api/v1/query?query=" +
                 url_encoded(counter.metric + "{series=\"" + counter.name + "\"}[4h]") +
                 "&time=" + url_encoded(rfc3339(end)));
    ASSERT_EQ(reply.status, 200) << reply.body;
    doc.Parse(reply.body.c_str());
    ASSERT_EQ(doc["data"]["result"].Size(), 1U) << reply.body;
    const auto& values = doc["data"]["result"][0]["values"];
    ASSERT_EQ(values.Size(), counter.series.v.size());
    for (rapidjson::SizeType i = 0; i < values.Size(); ++i) {
      EXPECT_EQ(std::llround(values[i][0].GetDouble() * 1000), counter.series.t_ms[i]);
      EXPECT_EQ(std::strtod(values[i][1].GetString(), nullptr), counter.series.v[i]);
    }
  }
}

TEST_F(PromqlPrometheusTest, RangeFunctionsEqualPrometheus) {
  constexpr std::int64_t kRanges[] = {20000, 60000, 90061, 300000, 1800000};
  constexpr std::size_t kAt[] = {1, 3, 14, 25, 59, 60, 61, 62, 90, 119};
  constexpr std::pair<Function, const char*> kFunctions[] = {
      {Function::rate, "rate"},
      {Function::increase, "increase"},
      {Function::sum_over_time, "sum_over_time"}};
  rapidjson::Document doc;
  unsigned compared = 0, absent = 0;
  for (const auto& counter : counters_) {
    const auto& t = counter.series.t_ms;
    for (const auto at : kAt) {
      if (at >= t.size()) continue;
      for (const auto range : kRanges) {
        // On a sample, just after it, between samples, left edge on it, left edge just past it,
        // left edge 11 s before the first sample.
        for (const auto eval : {t[at], t[at] + 1, t[at] + 7500, t[at] + range, t[at] + range + 1,
                                t.front() + range - 11000}) {
          for (const auto& [function, name] : kFunctions) {
            const std::string promql = std::string(name) + "(" + counter.metric + "{series=\"" +
                                       counter.name + "\"}[" + std::to_string(range) + "ms])";
            SCOPED_TRACE(promql + " at " + std::to_string(eval));
            const auto theirs = query(promql, eval, doc);
            const auto ours = evaluate(function, counter.series, eval, range);
            ASSERT_EQ(ours.has_value(), theirs.has_value());
            if (!ours) {
              ++absent;
              continue;
            }
            EXPECT_DOUBLE_EQ(*ours, *theirs);
            EXPECT_LE(std::abs(*ours - *theirs), 1e-12 * std::abs(*theirs));
            ++compared;
          }
        }
      }
    }
  }
  EXPECT_GT(compared, 500U);
  EXPECT_GT(absent, 10U) << "windows with fewer than two samples are compared too";
}

}  // namespace
}  // namespace netscore::sim
