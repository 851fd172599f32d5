#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

// A dependency-free line plot for the simulator's report: a browser shows it, nothing to
// install on a Debian machine without plotting tools.
namespace netscore::sim {

struct PlotSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y)
};

// A self-contained SVG document: axes with tick labels, one polyline per series, a legend.
void write_line_plot(std::ostream& out, const std::string& title, const std::string& x_label,
                     const std::string& y_label, const std::vector<PlotSeries>& series);

}  // namespace netscore::sim
