#include "common/quantity.h"

#include <algorithm>
#include <array>
#include <charconv>

namespace netscore {
namespace {

struct Suffix {
  std::string_view text;
  double factor;
};

// Kubernetes quantity suffixes, binary before decimal so "Mi" is not read as "M" + "i".
constexpr std::array<Suffix, 10> kSuffixes = {{{"Ki", 1024.0},
                                               {"Mi", 1024.0 * 1024},
                                               {"Gi", 1024.0 * 1024 * 1024},
                                               {"Ti", 1024.0 * 1024 * 1024 * 1024},
                                               {"Pi", 1024.0 * 1024 * 1024 * 1024 * 1024},
                                               {"k", 1e3},
                                               {"M", 1e6},
                                               {"G", 1e9},
                                               {"T", 1e12},
                                               {"P", 1e15}}};

}  // namespace

std::optional<double> parse_quantity(std::string_view text) {
  double factor = 1;
  for (const Suffix& s : kSuffixes) {
    if (text.size() > s.text.size() && text.ends_with(s.text)) {
      factor = s.factor;
      text.remove_suffix(s.text.size());
      break;
    }
  }
  // Digits with at most one '.': from_chars alone would also take "inf", "nan" and exponents.
  const auto digits =
      std::count_if(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  const auto dots = std::count(text.begin(), text.end(), '.');
  if (digits == 0 || dots > 1 || static_cast<std::size_t>(digits + dots) != text.size())
    return std::nullopt;
  double value = 0;
  const auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value * factor;
}

}  // namespace netscore
