#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

#include "common/model/domain.h"
#include "common/model/figures.h"
#include "common/model/scoring.h"

// Score integers to 0..100 among the nodes scored on the same basis, written once: the snapshot
// normalises over the cluster, prioritize over the nodes of one request (pure: thread-safe).
namespace netscore::model {

// `scores[i]` is rows[i]'s score integer, negative when the node is not scored (left as it is).
// Each scored one becomes its 0..100 among the scored rows of its basis, since bytes and
// utilisation do not compare. request: the plugin's NormalizeScore against the largest; range:
// the whole 0..100 between the least and the most loaded. Row is NodeFigures or a record that
// extends it. `normalisation` cluster is not a normalisation of the scores: read as request.
template <class Row>
void normalise_per_basis(Normalisation normalisation, std::span<const Row> rows,
                         std::span<std::int64_t> scores) noexcept {
  const std::size_t count = std::min(rows.size(), scores.size());
  const auto basis = [&](std::size_t i) { return scored_on_utilisation(rows[i]) ? 1 : 0; };
  std::array<std::int64_t, 2> max{0, 0};
  std::array<std::int64_t, 2> min{std::numeric_limits<std::int64_t>::max(),
                                  std::numeric_limits<std::int64_t>::max()};
  for (std::size_t i = 0; i < count; ++i) {
    if (scores[i] < 0) continue;
    max[basis(i)] = std::max(max[basis(i)], scores[i]);
    min[basis(i)] = std::min(min[basis(i)], scores[i]);
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (scores[i] < 0) continue;
    scores[i] = normalisation == Normalisation::range
                    ? normalise_score_range(scores[i], min[basis(i)], max[basis(i)])
                    : normalise_score(scores[i], max[basis(i)]);
  }
}

}  // namespace netscore::model
