#include "extender/scheduler/table_state.h"

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

namespace netscore::extender {

TableHealth table_health(const TableAttachment& table, const Config& config,
                         std::int64_t now_mono_ns) {
  TableHealth h;
  if (table.reader() == nullptr) {
    h.problem = fmt::format("score table not attached: {}", table.last_error());
    return h;
  }
  const Lookup lookup = lookup_nodes(table.reader(), {}, {}, {}, now_mono_ns, max_age_ns(config));
  h.freshness = lookup.freshness;
  switch (lookup.freshness) {
    case Freshness::fresh:
      break;
    case Freshness::stale:
      h.problem = "score table stale: " +
                  stale_for(lookup.age_ns, "NETSCORE_MAX_AGE " + config.max_age.text);
      break;
    case Freshness::empty:
      h.problem = "score table empty: the collector has not published yet";
      break;
    default:
      h.problem = fmt::format("score table {}", to_string(lookup.freshness));
      break;
  }
  return h;
}

void TableStateLog::observe(const TableHealth& health) {
  if (health.freshness == Freshness::busy) return;
  const int now = static_cast<int>(health.freshness);
  const int before = last_.exchange(now, std::memory_order_relaxed);
  if (before == now) return;
  const std::string_view from =
      before < 0 ? std::string_view("start") : to_string(static_cast<Freshness>(before));
  if (health.freshness == Freshness::fresh) {
    spdlog::info("table state from={} to=fresh: scores steer pods", from);
  } else {
    spdlog::warn(
        "table state from={} to={}: neutral scores, filter per NETSCORE_STALE_POLICY reason=\"{}\"",
        from, to_string(health.freshness), health.problem);
  }
}

}  // namespace netscore::extender
