// `pipescope-cli analyze FILE`: opens any trace pipescope reads (its own format, the
// JSON form of `run --trace`, Chrome/Perfetto or PyTorch profiler JSON, plain or
// gzip) and prints the same summary as a run.
#include <iostream>
#include <nlohmann/json.hpp>

#include "Commands.h"
#include "Options.h"
#include "RunSummary.h"
#include "io/TraceFiles.h"
#include "metrics/Metrics.h"

namespace pipescope::cli {

namespace {

int analyzeMain(const std::vector<std::string>& args) {
  bool json = false;
  OptionSet options;
  options.flag("json", "print the summary as JSON (the same fields as 'run --json')", [&json] { json = true; });
  if (wantsHelp(args)) {
    std::cout << "usage: pipescope-cli analyze FILE [--json]\n\n"
                 "Opens a trace and prints the metrics summary a run prints: lanes, ops, makespan, bandwidth,\n"
                 "overlap, ideal bound and bottleneck. FILE may be a .pipescope trace, the JSON written by\n"
                 "'run --trace x.json', or a Chrome trace event JSON (Perfetto, chrome://tracing, the PyTorch\n"
                 "profiler), plain or gzip-compressed; the format is detected from the content.\n\n"
              << options.help();
    return kExitOk;
  }
  std::vector<std::string> rest;
  std::string path;
  for (const auto& a : args) {
    if (a.rfind("--", 0) == 0 || path.size() > 0)
      rest.push_back(a);
    else
      path = a;
  }
  try {
    options.parse(rest);
    if (path.empty()) throw UsageError("missing the trace FILE to analyze (see 'pipescope-cli analyze --help')");
  } catch (const UsageError& e) {
    std::cerr << "pipescope-cli analyze: " << e.what() << "\n";
    return kExitUsage;
  }
  std::shared_ptr<Trace> trace;
  TraceFileFormat format{};
  try {
    format = detectTraceFileFormat(path);
    trace = loadTraceFile(path);
  } catch (const std::exception& e) {
    std::cerr << "pipescope-cli analyze: " << e.what() << "\n";
    return kExitRunFailed;
  }
  // A run that did not finish says why; a file cut off mid-stream says what was recovered.
  if (const RunOutcome o = trace->outcome(); o.state != RunState::Finished && !o.message.empty())
    std::cerr << "pipescope-cli analyze: " << path << ": " << toString(o.state) << ": " << o.message << "\n";
  RunReport report;
  report.configKnown = !trace->configHistory().empty();
  report.config = trace->config();
  report.device = trace->device();
  report.outcome = trace->outcome();
  report.metrics = computeMetrics(*trace);
  if (json) {
    nlohmann::json j = summaryJson(report);
    j["file"] = path;
    j["format"] = std::string(toString(format));
    j["lane_count"] = trace->laneCount();
    j["op_count"] = trace->ops().publishedCount();
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "Trace " << path << " (" << toString(format) << "): " << trace->laneCount() << " lanes, "
              << trace->ops().publishedCount() << " ops\n"
              << formatSummary(report);
  }
  return kExitOk;
}

const bool registered = registerCommand(
    {"analyze", "open a trace file (own, Chrome/Perfetto, PyTorch profiler) and print its metrics", analyzeMain});

}  // namespace

}  // namespace pipescope::cli
