#include "bench/prometheus_text/exposition.h"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace netscore::prometheus_text {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

void skip_spaces(std::string_view& text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
}

// A quoted label value with the format's three escapes (\\, \", \n); removes it from `text`.
std::optional<std::string> quoted(std::string_view& text) {
  if (!text.starts_with('"')) return std::nullopt;
  std::string out;
  for (std::size_t i = 1; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      text.remove_prefix(i + 1);
      return out;
    }
    if (c == '\\' && i + 1 < text.size()) {
      const char next = text[++i];
      out += next == 'n' ? '\n' : next;
      continue;
    }
    out += c;
  }
  return std::nullopt;
}

// `{name="value",...}` (a trailing comma allowed); removes it from `text`.
std::optional<Labels> label_set(std::string_view& text) {
  Labels out;
  text.remove_prefix(1);  // '{'
  while (true) {
    skip_spaces(text);
    if (text.starts_with('}')) {
      text.remove_prefix(1);
      return out;
    }
    const auto eq = text.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    std::string_view name = text.substr(0, eq);
    while (!name.empty() && is_space(name.back())) name.remove_suffix(1);
    text.remove_prefix(eq + 1);
    skip_spaces(text);
    auto label_value = quoted(text);
    if (!label_value || name.empty()) return std::nullopt;
    out[std::string(name)] = std::move(*label_value);
    skip_spaces(text);
    if (text.starts_with(',')) text.remove_prefix(1);
  }
}

std::optional<Sample> sample(std::string_view line) {
  const auto name_end = std::min(line.find_first_of("{ \t"), line.size());
  if (name_end == 0) return std::nullopt;
  Sample out{.name = std::string(line.substr(0, name_end))};
  line.remove_prefix(name_end);
  if (line.starts_with('{')) {
    auto labels = label_set(line);
    if (!labels) return std::nullopt;
    out.labels = std::move(*labels);
  }
  skip_spaces(line);
  // The value, then an optional timestamp.
  const auto value_end = std::min(line.find_first_of(" \t"), line.size());
  const auto parsed = number(line.substr(0, value_end));
  if (!parsed) return std::nullopt;
  out.value = *parsed;
  return out;
}

}  // namespace

std::optional<double> number(std::string_view text) {
  if (text == "+Inf" || text == "Inf") return std::numeric_limits<double>::infinity();
  if (text == "-Inf") return -std::numeric_limits<double>::infinity();
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  double out = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return out;
}

std::vector<Sample> parse(std::string_view exposition) {
  std::vector<Sample> out;
  while (!exposition.empty()) {
    const auto end = std::min(exposition.find('\n'), exposition.size());
    std::string_view line = exposition.substr(0, end);
    exposition.remove_prefix(std::min(end + 1, exposition.size()));
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    skip_spaces(line);
    if (line.empty() || line.starts_with('#')) continue;
    if (auto parsed = sample(line)) out.push_back(std::move(*parsed));
  }
  return out;
}

std::optional<double> value(const std::vector<Sample>& samples, std::string_view name,
                            const Labels& labels) {
  for (const auto& s : samples) {
    if (s.name == name && s.labels == labels) return s.value;
  }
  return std::nullopt;
}

bool matches(const Labels& labels, const Labels& matchers) {
  return std::all_of(matchers.begin(), matchers.end(), [&](const auto& matcher) {
    const auto it = labels.find(matcher.first);
    return it != labels.end() && it->second == matcher.second;
  });
}

}  // namespace netscore::prometheus_text
