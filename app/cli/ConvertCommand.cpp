// `pipescope-cli convert IN OUT`: any trace pipescope reads to the format OUT's
// extension names.
#include <iostream>

#include "Commands.h"
#include "Options.h"
#include "io/OutputFile.h"
#include "io/TraceFiles.h"
#include "ranks/RankMerge.h"

namespace pipescope::cli {

namespace {

int convertMain(const std::vector<std::string>& args) {
  bool metrics = false;
  std::string formatName;
  OptionSet options;
  options.flag("metrics", "with a .csv output, write the metrics (one row per figure) instead of the ops",
               [&metrics] { metrics = true; });
  options.value("format", "NAME",
                "the output format: pipescope, json or csv; needed when OUT has no such extension ('-' for "
                "standard output, a FIFO)",
                [&formatName](const std::string& v) { formatName = v; });
  if (wantsHelp(args)) {
    std::cout << "usage: pipescope-cli convert IN OUT [--metrics]\n\n"
                 "Reads the trace IN (any format 'analyze' reads, detected from the content; a folder of a job's\n"
                 "per-rank profiler traces becomes one trace of its ranks) and writes OUT in the\n"
                 "format its extension names:\n"
                 "  .pipescope  pipescope's own trace format (compact, lossless)\n"
                 "  .json       Chrome trace event JSON: opens in Perfetto (ui.perfetto.dev) and chrome://tracing\n"
                 "  .csv        one row per op (with --metrics: one row per metric)\n"
                 "OUT is written atomically: an existing file is replaced only once the new one is complete, and\n"
                 "keeps its permissions; a symbolic link's target is replaced. OUT '-' (or /dev/stdout, a FIFO, a\n"
                 "character device) is written through as a stream: pipescope-cli convert run.pipescope - --format\n"
                 "json | gzip > run.json.gz\n\n"
              << options.help();
    return kExitOk;
  }
  std::vector<std::string> files, rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0) {
      files.push_back(a);
      continue;
    }
    rest.push_back(a);
    if (a == "--format" && i + 1 < args.size()) rest.push_back(args[++i]);
  }
  std::optional<TraceFileFormat> format;
  try {
    options.parse(rest);
    if (files.size() != 2)
      throw UsageError("expected two files, IN and OUT, got " + std::to_string(files.size()) +
                       " (see 'pipescope-cli convert --help')");
    if (!formatName.empty()) {
      if (formatName == "pipescope" || formatName == "json" || formatName == "csv")
        format = outputFormatForPath("." + formatName);
      else
        throw UsageError("--format " + formatName + ": expected pipescope, json or csv");
    } else {
      format = outputFormatForPath(files[1]);
    }
    if (!format)
      throw UsageError("cannot tell the output format from '" + files[1] +
                       "': use the extension .pipescope, .json or .csv, or say --format pipescope|json|csv");
    if (metrics) {
      if (*format != TraceFileFormat::OpsCsv) throw UsageError("--metrics needs a .csv output");
      format = TraceFileFormat::MetricsCsv;
    }
  } catch (const UsageError& e) {
    std::cerr << "pipescope-cli convert: " << e.what() << "\n";
    return kExitUsage;
  }
  try {
    std::shared_ptr<Trace> trace;
    if (opensAsRanks({files[0]})) {
      // A folder of a job's per-rank profiler traces becomes one trace of its ranks.
      std::vector<std::string> problems;
      trace = loadRanks({files[0]}, {}, {}, &problems);
      for (const auto& p : problems) std::cerr << "pipescope-cli convert: " << p << "\n";
    } else {
      trace = loadTraceFile(files[0]);
    }
    saveTraceFile(*trace, files[1], *format);
    // With the output on standard output, the note must not mix into it.
    (isStandardOutputPath(files[1]) ? std::cerr : std::cout) << "wrote " << files[1] << " (" << toString(*format) << ", " << trace->ops().publishedCount() << " ops, "
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
