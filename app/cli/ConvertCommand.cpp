// `pipescope-cli convert IN OUT`: any trace pipescope reads to the format OUT's
// extension names.
#include <iostream>

#include "Commands.h"
#include "Options.h"
#include "io/TraceFiles.h"

namespace pipescope::cli {

namespace {

int convertMain(const std::vector<std::string>& args) {
  bool metrics = false;
  OptionSet options;
  options.flag("metrics", "with a .csv output, write the metrics (one row per figure) instead of the ops",
               [&metrics] { metrics = true; });
  if (wantsHelp(args)) {
    std::cout << "usage: pipescope-cli convert IN OUT [--metrics]\n\n"
                 "Reads the trace IN (any format 'analyze' reads, detected from the content) and writes OUT in the\n"
                 "format its extension names:\n"
                 "  .pipescope  pipescope's own trace format (compact, lossless)\n"
                 "  .json       Chrome trace event JSON: opens in Perfetto (ui.perfetto.dev) and chrome://tracing\n"
                 "  .csv        one row per op (with --metrics: one row per metric)\n"
                 "OUT is written atomically: an existing file is replaced only once the new one is complete.\n\n"
              << options.help();
    return kExitOk;
  }
  std::vector<std::string> files, rest;
  for (const auto& a : args) (a.rfind("--", 0) == 0 ? rest : files).push_back(a);
  std::optional<TraceFileFormat> format;
  try {
    options.parse(rest);
    if (files.size() != 2)
      throw UsageError("expected two files, IN and OUT, got " + std::to_string(files.size()) +
                       " (see 'pipescope-cli convert --help')");
    format = outputFormatForPath(files[1]);
    if (!format)
      throw UsageError("cannot tell the output format from '" + files[1] +
                       "': use the extension .pipescope, .json or .csv");
    if (metrics) {
      if (*format != TraceFileFormat::OpsCsv) throw UsageError("--metrics needs a .csv output");
      format = TraceFileFormat::MetricsCsv;
    }
  } catch (const UsageError& e) {
    std::cerr << "pipescope-cli convert: " << e.what() << "\n";
    return kExitUsage;
  }
  try {
    auto trace = loadTraceFile(files[0]);
    saveTraceFile(*trace, files[1], *format);
    std::cout << "wrote " << files[1] << " (" << toString(*format) << ", " << trace->ops().publishedCount() << " ops, "
              << trace->laneCount() << " lanes)\n";
  } catch (const std::exception& e) {
    std::cerr << "pipescope-cli convert: " << e.what() << "\n";
    return kExitRunFailed;
  }
  return kExitOk;
}

const bool registered = registerCommand(
    {"convert", "convert a trace between formats (.pipescope, Chrome .json, .csv), chosen by OUT's extension",
     convertMain});

}  // namespace

}  // namespace pipescope::cli
