// netscore-synth: synthetic node-exporter OpenMetrics for promtool backfill (tests, bench, demos).
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>

#include "tests/support/synth.h"

int main(int argc, char** argv) {
  netscore::testing::SynthOptions options;
  options.end_s = std::time(nullptr) + 3600;
  std::string out_file;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--nodes" && has_value) {
      options.nodes = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else if (arg == "--end" && has_value) {
      options.end_s = std::strtoll(argv[++i], nullptr, 10);
    } else if (arg == "--hours" && has_value) {
      options.hours = std::strtod(argv[++i], nullptr);
    } else if (arg == "--links") {
      options.links = true;
    } else if (arg == "--out" && has_value) {
      out_file = argv[++i];
    } else {
      std::fprintf(
          stderr,
          "usage: %s [--nodes N] [--end UNIX_SECONDS (default now+1h)] [--hours H] [--links] "
          "--out FILE\n",
          argv[0]);
      return 2;
    }
  }
  if (out_file.empty() || options.nodes == 0 || options.hours <= 0) {
    std::fprintf(stderr, "%s: --out FILE, --nodes > 0 and --hours > 0 are required\n", argv[0]);
    return 2;
  }
  std::ofstream out(out_file);
  netscore::testing::write_openmetrics(options, out);
  out.close();
  if (!out) {
    std::fprintf(stderr, "%s: cannot write %s\n", argv[0], out_file.c_str());
    return 1;
  }
  return 0;
}
