#include "bench/soak/soak_report.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include <boost/system/system_error.hpp>
#include <rapidjson/document.h>

namespace netscore::bench {
namespace {

std::int64_t member(const rapidjson::Value& object, const char* name) {
  const auto it = object.FindMember(name);
  return it != object.MemberEnd() && it->value.IsInt64() ? it->value.GetInt64() : -1;
}

bool check(const char* what, bool ok) {
  std::printf("check %-58s %s\n", what, ok ? "PASS" : "FAIL");
  return ok;
}

}  // namespace

CollectorCounts read_collector_counts(testing::HttpConnection& client) {
  CollectorCounts counts;
  testing::WireResponse res;
  try {
    res = client.send(testing::get_request("/table"));
  } catch (const boost::system::system_error&) {
    try {
      client.reconnect();
      res = client.send(testing::get_request("/table"));
    } catch (const boost::system::system_error&) {
      return counts;
    }
  }
  rapidjson::Document doc;
  doc.Parse(res.body().c_str());
  if (res.result_int() != 200 || doc.HasParseError() || !doc.IsObject() ||
      !doc.HasMember("collector") || !doc["collector"].IsObject()) {
    return counts;
  }
  const auto& collector = doc["collector"];
  counts.refreshes = member(collector, "refreshes_total");
  counts.failures = member(collector, "failures_total");
  counts.consecutive_failures = member(collector, "consecutive_failures");
  return counts;
}

void SoakReport::add_interval(double t_s, IntervalTally&& interval, const Sample& s) {
  std::vector<double>& lat = interval.latency_us;
  const double p50 = percentile(lat, 0.50);
  const double p99 = percentile(lat, 0.99);
  const double max = lat.empty() ? 0 : *std::max_element(lat.begin(), lat.end());
  interval_p99_us_.push_back(p99);
  std::printf(
      "soak_interval t_s=%.0f requests=%llu non2xx=%llu transport_errors=%llu p50_us=%.0f "
      "p99_us=%.0f max_us=%.0f extender_rss_kb=%ld extender_fds=%ld collector_rss_kb=%ld "
      "collector_fds=%ld refreshes=%lld refresh_failures=%lld consecutive_failures=%lld\n",
      t_s, static_cast<unsigned long long>(interval.requests),
      static_cast<unsigned long long>(interval.non2xx),
      static_cast<unsigned long long>(interval.transport_errors), p50, p99, max, s.extender.rss_kb,
      s.extender.fds, s.collector.rss_kb, s.collector.fds,
      static_cast<long long>(s.counts.refreshes), static_cast<long long>(s.counts.failures),
      static_cast<long long>(s.counts.consecutive_failures));
  if (!interval.first_failure.empty())
    std::printf("first_non2xx %s\n", interval.first_failure.c_str());
  std::fflush(stdout);
  merge(total_, std::move(interval));
}

bool SoakReport::print_summary(double elapsed_s) {
  std::vector<double>& lat = total_.latency_us;
  const double p50 = percentile(lat, 0.50);
  const double p99 = percentile(lat, 0.99);
  const double worst_interval_p99 =
      interval_p99_us_.empty()
          ? 0
          : *std::max_element(interval_p99_us_.begin(), interval_p99_us_.end());
  const long rss_growth_kb = end_.extender.rss_kb - start_.extender.rss_kb;
  const auto successes = [](const CollectorCounts& c) { return c.refreshes - c.failures; };
  std::printf("\n== soak report\n");
  std::printf(
      "requests=%llu req_per_s=%.0f non2xx=%llu transport_errors=%llu elapsed_s=%.0f clients=%u\n",
      static_cast<unsigned long long>(total_.requests),
      static_cast<double>(total_.requests) / elapsed_s,
      static_cast<unsigned long long>(total_.non2xx),
      static_cast<unsigned long long>(total_.transport_errors), elapsed_s, clients_);
  std::printf("latency_us p50=%.0f p99=%.0f worst_interval_p99=%.0f (client side)\n", p50, p99,
              worst_interval_p99);
  std::printf("extender  rss_kb start=%ld end=%ld growth=%ld  fds start=%ld end=%ld\n",
              start_.extender.rss_kb, end_.extender.rss_kb, rss_growth_kb, start_.extender.fds,
              end_.extender.fds);
  std::printf("collector rss_kb start=%ld end=%ld growth=%ld  fds start=%ld end=%ld\n",
              start_.collector.rss_kb, end_.collector.rss_kb,
              end_.collector.rss_kb - start_.collector.rss_kb, start_.collector.fds,
              end_.collector.fds);
  std::printf(
      "collector refreshes ok=%lld failed=%lld (after warm-up: ok=%lld failed=%lld) "
      "prometheus_restarts=%d\n",
      static_cast<long long>(successes(end_.counts)), static_cast<long long>(end_.counts.failures),
      static_cast<long long>(successes(end_.counts) - successes(start_.counts)),
      static_cast<long long>(end_.counts.failures - start_.counts.failures), restarts_);
  if (!total_.first_failure.empty()) std::printf("first_non2xx %s\n", total_.first_failure.c_str());
  const std::string rss_check =
      "extender RSS growth <= " + std::to_string(static_cast<long>(rss_bound_kb_)) + " kB";
  bool pass = true;
  pass &= check("requests served > 0", total_.requests > 0);
  pass &= check("0 non-2xx responses to valid requests", total_.non2xx == 0);
  pass &= check(rss_check.c_str(), start_.extender.rss_kb > 0 && end_.extender.rss_kb > 0 &&
                                       static_cast<double>(rss_growth_kb) <= rss_bound_kb_);
  pass &= check("extender fds end <= start + clients",
                start_.extender.fds > 0 && end_.extender.fds <= start_.extender.fds + clients_);
  pass &= check("collector fds end <= start + clients",
                start_.collector.fds > 0 && end_.collector.fds <= start_.collector.fds + clients_);
  pass &= check("extender and collector alive at the end", children_alive_);
  pass &= check("Prometheus restarted twice", restarts_ == 2);
  pass &= check(
      "collector refreshing successfully at the end",
      end_.counts.consecutive_failures == 0 && successes(end_.counts) > successes(start_.counts));
  std::printf("soak_result pass=%d\n", pass ? 1 : 0);
  std::fflush(stdout);
  return pass;
}

}  // namespace netscore::bench
