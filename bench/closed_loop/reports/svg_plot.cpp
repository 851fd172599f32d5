#include "bench/closed_loop/reports/svg_plot.h"

#include "common/markup_escape.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace netscore::sim {
namespace {

constexpr double kWidth = 800, kHeight = 480;
constexpr double kLeft = 80, kRight = 620, kTop = 40, kBottom = 420;  // the plot area
constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                    "#9467bd", "#8c564b", "#e377c2", "#17becf"};

std::string escaped(const std::string& text) {
  std::string out;
  append_markup_escaped(text, out);
  return out;
}

std::string number(double v, int precision) {
  std::ostringstream out;
  out << std::setprecision(precision) << v;
  return out.str();
}

// An axis from a multiple of a 1-2-5 step below the data to one above: about five ticks.
struct Axis {
  double lo, hi, step;
  Axis(double min, double max) {
    if (!(min < max)) {
      const double pad = min == 0 ? 1 : std::abs(min) / 2;
      min -= pad;
      max += pad;
    }
    const double raw = (max - min) / 5;
    const double magnitude = std::pow(10, std::floor(std::log10(raw)));
    const double fraction = raw / magnitude;
    step = (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * magnitude;
    lo = std::floor(min / step) * step;
    hi = std::ceil(max / step) * step;
  }
  double map(double v, double from, double to) const {
    return from + (v - lo) / (hi - lo) * (to - from);
  }
};

}  // namespace

void write_line_plot(std::ostream& out, const std::string& title, const std::string& x_label,
                     const std::string& y_label, const std::vector<PlotSeries>& series) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  double x_min = inf, x_max = -inf, y_min = inf, y_max = -inf;
  for (const auto& s : series) {
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      x_min = std::min(x_min, x);
      x_max = std::max(x_max, x);
      y_min = std::min(y_min, y);
      y_max = std::max(y_max, y);
    }
  }
  if (x_min > x_max) x_min = x_max = y_min = y_max = 0;  // nothing to draw: a unit frame
  const Axis xa(x_min, x_max), ya(y_min, y_max);

  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" viewBox=\"0 0 " << kWidth << ' ' << kHeight
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << (kLeft + kRight) / 2
      << "\" y=\"24\" text-anchor=\"middle\" font-size=\"16\">" << escaped(title) << "</text>\n";
  for (int i = 0; xa.lo + i * xa.step <= xa.hi + xa.step / 1e6; ++i) {
    const double v = xa.lo + i * xa.step;
    const double x = xa.map(v, kLeft, kRight);
    out << "<line x1=\"" << x << "\" y1=\"" << kTop << "\" x2=\"" << x << "\" y2=\"" << kBottom
        << "\" stroke=\"#ddd\"/>\n<text x=\"" << x << "\" y=\"" << kBottom + 16
        << "\" text-anchor=\"middle\">" << number(std::abs(v) < xa.step / 1e6 ? 0 : v, 6)
        << "</text>\n";
  }
  for (int i = 0; ya.lo + i * ya.step <= ya.hi + ya.step / 1e6; ++i) {
    const double v = ya.lo + i * ya.step;
    const double y = ya.map(v, kBottom, kTop);
    out << "<line x1=\"" << kLeft << "\" y1=\"" << y << "\" x2=\"" << kRight << "\" y2=\"" << y
        << "\" stroke=\"#ddd\"/>\n<text x=\"" << kLeft - 6 << "\" y=\"" << y + 4
        << "\" text-anchor=\"end\">" << number(std::abs(v) < ya.step / 1e6 ? 0 : v, 6)
        << "</text>\n";
  }
  out << "<rect class=\"plot-area\" x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\""
      << kRight - kLeft << "\" height=\"" << kBottom - kTop
      << "\" fill=\"none\" stroke=\"black\"/>\n"
      << "<text x=\"" << (kLeft + kRight) / 2 << "\" y=\"" << kBottom + 40
      << "\" text-anchor=\"middle\">" << escaped(x_label) << "</text>\n"
      << "<text transform=\"translate(20 " << (kTop + kBottom) / 2
      << ") rotate(-90)\" text-anchor=\"middle\">" << escaped(y_label) << "</text>\n";
  for (std::size_t i = 0; i < series.size(); ++i) {
    const char* colour = kColours[i % std::size(kColours)];
    out << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.5\" points=\"";
    const char* separator = "";
    for (const auto& [x, y] : series[i].points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      out << separator << number(xa.map(x, kLeft, kRight), 7) << ','
          << number(ya.map(y, kBottom, kTop), 7);
      separator = " ";
    }
    const double legend_y = kTop + 10 + 20 * static_cast<double>(i);
    out << "\"/>\n<line x1=\"" << kRight + 15 << "\" y1=\"" << legend_y << "\" x2=\"" << kRight + 40
        << "\" y2=\"" << legend_y << "\" stroke=\"" << colour
        << "\" stroke-width=\"3\"/>\n<text x=\"" << kRight + 46 << "\" y=\"" << legend_y + 4
        << "\">" << escaped(series[i].name) << "</text>\n";
  }
  out << "</svg>\n";
}

}  // namespace netscore::sim
