// `pipescope-cli compare --a SOURCE --b SOURCE`: the A/B table of two runs.
#include <iostream>
#include <nlohmann/json.hpp>

#include "Commands.h"
#include "CompareSources.h"
#include "Options.h"
#include "analysis/AnalysisJson.h"
#include "analysis/Comparison.h"
#include "config/ConfigJson.h"

namespace pipescope::cli {

namespace {

std::string help(const OptionSet& options) {
  return "usage: pipescope-cli compare --a SOURCE --b SOURCE [--json]\n"
         "\n"
         "Prints the metrics of two runs side by side (makespan, throughput, bandwidth, busy and overlap\n"
         "fractions, efficiency, bottleneck) with the difference and which run is better.\n"
         "\n"
         "A SOURCE is either\n"
         "  a trace file    any trace 'analyze' reads: 'run --trace' output (.pipescope or .json), Chrome /\n"
         "                  Perfetto or PyTorch profiler JSON, gzipped or not (prefix 'trace:' to force), or\n"
         "  a run spec      'run' options as comma-separated key=value pairs, flags as bare names, run first\n"
         "                  on the simulator unless it says backend=cuda|auto (prefix 'run:' to force):\n"
         "                  preset=naive    preset=pinned,streams=4    preset=breadth-first,profile=c1060-like\n"
         "Without a prefix, a SOURCE naming an existing file is a trace file, one with '=' a run spec.\n" +
         options.help() +
         "\nExit status: 0 compared, 1 a file could not be read or a run failed, 2 bad option or run spec.\n"
         "\nExamples:\n"
         "  pipescope-cli compare --a preset=naive --b preset=pinned\n"
         "  pipescope-cli compare --a preset=multi-stream --b preset=multi-stream,profile=c2050-like --json\n"
         "  pipescope-cli compare --a before.json --b after.json\n";
}

std::string pad(const std::string& s, std::size_t width) {
  // Column widths count characters, not bytes ("µs" is 3 bytes, 2 characters).
  std::size_t chars = 0;
  for (unsigned char c : s) chars += (c & 0xC0) != 0x80 ? 1 : 0;
  return s + std::string(chars < width ? width - chars : 0, ' ');
}

std::string formatTable(const ComparisonTable& t) {
  std::size_t wl = 5, wa = 1, wb = 1, wd = 10;
  auto len = [](const std::string& s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80 ? 1 : 0;
    return n;
  };
  for (const auto& r : t.rows) {
    wl = std::max(wl, len(r.label));
    wa = std::max(wa, len(r.aText));
    wb = std::max(wb, len(r.bText));
    wd = std::max(wd, len(r.differenceText));
  }
  std::string s =
      "  " + pad("", wl) + "  " + pad("A", wa) + "  " + pad("B", wb) + "  " + pad("B vs A", wd) + "  better\n";
  for (const auto& r : t.rows)
    s += "  " + pad(r.label, wl) + "  " + pad(r.aText, wa) + "  " + pad(r.bText, wb) + "  " +
         pad(r.differenceText, wd) + "  " + std::string(toString(r.better)) + "\n";
  return s;
}

std::string describeSource(const ComparedRun& r) {
  const DeviceInfo d = r.trace->device();
  std::string where = d.backend == "simulator" ? "simulator, profile " + d.profile : d.summary();
  return r.source + " (" + (r.kind == "run" ? "run on " : "trace from ") + where + ")";
}

int compareMain(const std::vector<std::string>& args) {
  std::string a, b;
  bool json = false;
  OptionSet options;
  options.group("Options");
  options.value("a", "SOURCE", "run A: a trace file or a run spec (see above)", [&](const std::string& v) { a = v; });
  options.value("b", "SOURCE", "run B: a trace file or a run spec", [&](const std::string& v) { b = v; });
  options.flag("json", "print the comparison as JSON on stdout", [&] { json = true; });
  if (wantsHelp(args)) {
    std::cout << help(options);
    return kExitOk;
  }
  auto usage = [](const std::string& m) {
    std::cerr << "pipescope-cli compare: " << m << "\nSee 'pipescope-cli compare --help'.\n";
    return kExitUsage;
  };
  try {
    options.parse(args);
  } catch (const UsageError& e) {
    return usage(e.what());
  }
  if (a.empty() || b.empty()) return usage("both --a and --b are needed, e.g. --a preset=naive --b preset=pinned");
  ComparedRun ra, rb;
  try {
    ra = loadComparedRun(a);
    rb = loadComparedRun(b);
  } catch (const UsageError& e) {
    return usage(e.what());
  } catch (const std::exception& e) {
    std::cerr << "pipescope-cli compare: " << e.what() << "\n";
    return kExitRunFailed;
  }
  const ComparisonTable table = compareRuns(ra.metrics, rb.metrics, a, b);
  if (json) {
    nlohmann::json j = comparisonToJson(table);
    auto side = [](const ComparedRun& r) {
      const auto history = r.trace->configHistory();
      return nlohmann::json{
          {"source", r.source},
          {"kind", r.kind},
          {"device", r.trace->device().summary()},
          {"config", history.empty() ? nlohmann::json(nullptr) : configToJson(history.front().config)},
          {"batches", r.metrics.batches}};
    };
    j["a_run"] = side(ra);
    j["b_run"] = side(rb);
    j["pipescope_compare_version"] = 1;
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "A: " << describeSource(ra) << "\nB: " << describeSource(rb) << "\n\n" << formatTable(table);
  return kExitOk;
}

const bool registered =
    registerCommand({"compare", "compare two runs (trace files or run specs) in one table", compareMain});

}  // namespace

}  // namespace pipescope::cli
