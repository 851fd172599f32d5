#include "common/model/normalise.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <span>

namespace netscore::model {
namespace {

NodeFigures on_basis(bool utilisation) {
  return {.flags = kEntryValid | (utilisation ? kEntryUtilisation : 0U)};
}

TEST(NormalisePerBasis, UtilisationAndRawNodesAreNormalisedEachAmongTheirOwn) {
  // Parts per million and bytes: 1000 bytes is not quieter than 250000 ppm, nor louder.
  const std::array<NodeFigures, 5> rows = {on_basis(true), on_basis(true), on_basis(false),
                                           on_basis(false), on_basis(false)};
  std::array<std::int64_t, 5> scores = {250000, 500000, 1000, 4000, -1};
  normalise_per_basis(Normalisation::request, std::span<const NodeFigures>(rows), scores);
  // 100 - 250000*100/500000 and 100 - 1000*100/4000; the unscored node is left as it was.
  EXPECT_EQ(scores, (std::array<std::int64_t, 5>{50, 0, 75, 0, -1}));

  // Range: each group spans its own least and most loaded node.
  std::array<std::int64_t, 5> ranged = {100, 300, 200, 1000, 600};
  normalise_per_basis(Normalisation::range, std::span<const NodeFigures>(rows), ranged);
  EXPECT_EQ(ranged, (std::array<std::int64_t, 5>{100, 0, 100, 0, 50}));
}

}  // namespace
}  // namespace netscore::model
