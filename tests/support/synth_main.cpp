// netscore-synth: synthetic node-exporter OpenMetrics for promtool backfill (tests, bench, demos).
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>

#include <boost/program_options.hpp>

#include "tests/support/command_line.h"
#include "tests/support/synth.h"

int main(int argc, char** argv) {
  namespace nt = netscore::testing;
  namespace po = boost::program_options;
  nt::SynthOptions options;
  options.end_s = std::time(nullptr) + 3600;
  std::string out_file;
  po::options_description flags("Flags");
  flags.add_options()("nodes", nt::number(options.nodes), "nodes to write series for (> 0)")(
      "end", nt::number(options.end_s), "the last sample's time in Unix seconds (default now+1h)")(
      "hours", nt::number(options.hours), "hours of samples before --end (> 0)")(
      "links", po::bool_switch(&options.links),
      "also write the transmit counters and the link speeds")(
      "out", po::value(&out_file)->required(), "the OpenMetrics file to write");
  if (const auto exit_status = nt::parse_command_line(
          argc, argv, flags, "--out FILE [--nodes N] [--end UNIX_SECONDS] [--hours H] [--links]",
          std::cout, std::cerr))
    return *exit_status;
  if (options.nodes == 0 || options.hours <= 0) {
    std::fprintf(stderr, "%s: --nodes and --hours must be above 0\n", argv[0]);
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
