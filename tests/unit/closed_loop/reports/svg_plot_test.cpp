#include "bench/closed_loop/reports/svg_plot.h"

#include <sstream>

#include <gtest/gtest.h>

namespace netscore::sim {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The text of attribute name in the element starting at from.
std::string attribute(const std::string& svg, std::size_t from, const std::string& name) {
  const auto end = svg.find('>', from);
  const auto at = svg.find(" " + name + "=\"", from);
  EXPECT_LT(at, end) << name << " in " << svg.substr(from, end - from);
  if (at >= end) return {};
  const auto value = at + name.size() + 3;
  return svg.substr(value, svg.find('"', value) - value);
}

std::string plot(const std::vector<PlotSeries>& series) {
  std::ostringstream out;
  write_line_plot(out, "Peak <to> mean", "t & s", "max/mean", series);
  return out.str();
}

TEST(SvgPlotTest, ADocumentWithOnePolylinePerSeriesAndAnEscapedLegend) {
  const auto svg =
      plot({{"a<b", {{0, 1}, {10, 2}, {20, 1.5}}}, {"c&d \"e\"", {{5, 3}, {15, 0.5}}}});
  EXPECT_EQ(svg.rfind("<?xml", 0), 0U);
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_NE(svg.find("viewBox=\"0 0 800 480\""), std::string::npos);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  EXPECT_EQ(count(svg, "<polyline"), 2U);
  EXPECT_NE(svg.find(">a&lt;b</text>"), std::string::npos);
  EXPECT_NE(svg.find(">c&amp;d &quot;e&quot;</text>"), std::string::npos);
  EXPECT_NE(svg.find(">Peak &lt;to&gt; mean</text>"), std::string::npos);
  EXPECT_NE(svg.find(">t &amp; s</text>"), std::string::npos);
  EXPECT_EQ(svg.find("a<b"), std::string::npos);
  EXPECT_EQ(svg.find("Peak <to>"), std::string::npos);
  EXPECT_EQ(count(svg, "<text"), count(svg, "</text>"));
  // Tick labels: 0 and 20 on x, 0 and 3 on y among them.
  EXPECT_NE(svg.find(">20</text>"), std::string::npos);
  EXPECT_NE(svg.find(">3</text>"), std::string::npos);
}

TEST(SvgPlotTest, PointsLieInThePlotAreaAndKeepTheirOrder) {
  const auto svg = plot({{"one", {{0, 1}, {10, 2}, {20, 1.5}}}, {"two", {{5, 3}, {15, 0.5}}}});
  const auto area = svg.find("<rect class=\"plot-area\"");
  ASSERT_NE(area, std::string::npos);
  const double left = std::stod(attribute(svg, area, "x"));
  const double top = std::stod(attribute(svg, area, "y"));
  const double right = left + std::stod(attribute(svg, area, "width"));
  const double bottom = top + std::stod(attribute(svg, area, "height"));
  std::vector<std::vector<std::pair<double, double>>> lines;
  for (auto at = svg.find("<polyline"); at != std::string::npos;
       at = svg.find("<polyline", at + 1)) {
    std::istringstream points(attribute(svg, at, "points"));
    lines.emplace_back();
    double x = 0, y = 0;
    char comma = 0;
    while (points >> x >> comma >> y) {
      EXPECT_EQ(comma, ',');
      EXPECT_GE(x, left);
      EXPECT_LE(x, right);
      EXPECT_GE(y, top);
      EXPECT_LE(y, bottom);
      lines.back().emplace_back(x, y);
    }
  }
  ASSERT_EQ(lines.size(), 2U);
  ASSERT_EQ(lines[0].size(), 3U);
  ASSERT_EQ(lines[1].size(), 2U);
  EXPECT_LT(lines[0][0].first, lines[0][1].first);
  EXPECT_GT(lines[0][0].second, lines[0][1].second) << "a larger y is higher up";
  EXPECT_LT(lines[1][0].second, lines[0][1].second) << "3 is above 2";
}

TEST(SvgPlotTest, DegenerateInputStillMakesADocument) {
  EXPECT_EQ(count(plot({}), "<polyline"), 0U);
  const auto flat = plot({{"flat", {{1, 5}, {1, 5}}}, {"empty", {}}});
  EXPECT_EQ(count(flat, "<polyline"), 2U);
  EXPECT_EQ(flat.find("nan"), std::string::npos);
  EXPECT_EQ(flat.find("inf"), std::string::npos);
}

}  // namespace
}  // namespace netscore::sim
