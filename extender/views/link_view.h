#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "common/table/score_table_reader.h"
#include "extender/views/json_writer.h"
#include "extender/views/metrics.h"

// What a snapshot says about its nodes' links, summed over the nodes: the basis they were scored
// on, where their speeds came from, the busiest link. /table shows it per snapshot beside each
// node's figures; /metrics has only these sums (a series per node would be thousands per scrape).
// Pure functions: thread-safe.
namespace netscore::extender {

// How a snapshot's rows were scored and where their link speeds came from.
struct LinkSummary {
  std::uint32_t raw = 0;          // valid rows scored on bytes
  std::uint32_t utilisation = 0;  // valid rows scored on rate / speed
  // Every row by speed source (they add up to the rows).
  std::uint32_t measured = 0;
  std::uint32_t fallback = 0;
  std::uint32_t none = 0;
  // Rows where some device reported a speed that is not positive; such a row may still have a
  // speed (other devices, or the fallback), so it also counts under its source.
  std::uint32_t unusable = 0;
  // The busiest link in each direction; nullopt when no row has that utilisation.
  std::optional<double> max_receive_utilisation;
  std::optional<double> max_transmit_utilisation;
};
LinkSummary summarise_links(const std::vector<TableRow>& rows);

// The snapshot's basis and direction and `links`, as fields of the current JSON object.
void write_link_summary(JsonWriter& j, const shm::SnapshotMeta& meta, const LinkSummary& links);

// The same as metric families: the basis and direction as an info gauge, the counts, and the
// busiest link per direction (no sample for a direction no node has a utilisation in).
void collect_link_metrics(const shm::SnapshotMeta& meta, const std::vector<TableRow>& rows,
                          MetricFamilies& out);

}  // namespace netscore::extender
