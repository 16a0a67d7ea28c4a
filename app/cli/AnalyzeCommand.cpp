// `pipescope-cli analyze FILE`: opens any trace pipescope reads (its own format, the
// JSON form of `run --trace`, Chrome/Perfetto or PyTorch profiler JSON, plain or
// gzip, or a tensorboard_trace_handler folder) and prints the same summary as a run:
// metrics, limits, wait causes and, for imported traces with iterations, the derived
// configuration and the advice the simulator predicts for it.
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "Commands.h"
#include "Options.h"
#include "RunSummary.h"
#include "TraceReport.h"
#include "analysis/AnalysisJson.h"
#include "analysis/DerivedConfig.h"
#include "config/ConfigJson.h"
#include "io/OutputFile.h"
#include "io/TraceFiles.h"
#include "metrics/Metrics.h"
#include "ranks/BucketWhatIf.h"
#include "ranks/RankAnalysisFormat.h"
#include "ranks/RankMerge.h"

namespace pipescope::cli {

namespace {

struct AnalyzeRequest {
  bool json = false;
  ImportOptions import;
  std::string worker;
  std::string profile;
  std::string derivePath;
  bool noAdvice = false;
  std::vector<int> buckets = kDefaultWhatIfBuckets;
  bool bucketsAsked = false;
};

OptionSet analyzeOptions(AnalyzeRequest& r) {
  OptionSet o;
  o.flag("json", "print the summary as JSON (the same fields as 'run --json', with the analysis)",
         [&r] { r.json = true; });
  o.group("Imported traces (PyTorch profiler, Chrome/Perfetto)");
  o.value("iteration-marker", "NAME",
          "the range (record_function / NVTX) that starts an iteration, when the automatic choice (ProfilerStep#N, "
          "else the first range of a repeating sequence) is wrong",
          [&r](const std::string& v) {
            if (v.empty()) throw UsageError("--iteration-marker needs the name of a range");
            r.import.iterations.marker = v;
          });
  o.value("batch-size", "N", "samples per iteration, for samples/s and the derived configuration (1..1048576)",
          [&r](const std::string& v) { r.import.batchSize = parseInteger("batch-size", v, 1, 1 << 20); });
  o.value("worker", "NAME",
          "when FILE is a folder of tensorboard_trace_handler files, the one whose name contains NAME",
          [&r](const std::string& v) { r.worker = v; });
  o.value("profile", "NAME|FILE",
          "device profile for the derived configuration and the advice (default: the calibrated built-in profile "
          "of the trace's GPU, else h200; the summary says which)",
          [&r](const std::string& v) { r.profile = v; });
  o.value("derive-config", "FILE.json",
          "write the pipescope configuration that reproduces one iteration on the simulator; "
          "'pipescope-cli sweep --config FILE.json' sweeps it",
          [&r](const std::string& v) {
            if (v.empty()) throw UsageError("--derive-config needs a file name");
            r.derivePath = v;
          });
  o.flag("no-advice", "skip the derived configuration and the advice (no simulations)", [&r] { r.noAdvice = true; });
  o.group("Ranks of a distributed job");
  o.value("what-if", "buckets=K[,K...]",
          "the step time and exposed communication predicted with DDP's gradients all-reduced in K buckets "
          "(default: buckets=1,2,4,8)",
          [&r](const std::string& v) {
            try {
              r.buckets = parseBucketsWhatIf(v);
              r.bucketsAsked = true;
            } catch (const std::invalid_argument& e) {
              throw UsageError(std::string("--what-if ") + e.what());
            }
          });
  return o;
}

int analyzeMain(const std::vector<std::string>& args) {
  AnalyzeRequest req;
  OptionSet options = analyzeOptions(req);
  if (wantsHelp(args)) {
    std::cout << "usage: pipescope-cli analyze FILE|FOLDER [FILE ...] [--json] [--iteration-marker NAME]\n"
                 "                             [--batch-size N] [--profile NAME] [--derive-config FILE.json]\n"
                 "                             [--what-if buckets=K[,K...]]\n\n"
                 "Opens a trace and prints the summary a run prints: metrics, ideal bound, limits, wait causes and\n"
                 "bottleneck. FILE may be a .pipescope trace, the JSON written by 'run --trace x.json', or a Chrome\n"
                 "trace event JSON (Perfetto, chrome://tracing, the PyTorch profiler's export_chrome_trace or\n"
                 "tensorboard_trace_handler *.pt.trace.json), plain or gzip-compressed; the format is detected from\n"
                 "the content. A folder stands for the profiler trace in it (--worker picks one of several).\n\n"
                 "Ranks of a distributed job: a folder of several profiler traces (tensorboard_trace_handler writes\n"
                 "one per rank), or several FILEs, open as one trace with one group of lanes per rank, their clocks\n"
                 "aligned on the collectives. The summary adds a per-rank table (compute, exposed communication,\n"
                 "overlap, idle by cause, time waited for other ranks and made others wait), the straggler and\n"
                 "what the job would gain if it were as fast as the median rank, and the step time predicted with the\n"
                 "gradients all-reduced in K buckets (--what-if buckets=K,...).\n\n"
                 "Imported traces: each iteration (ProfilerStep#N, a repeating sequence of record_function ranges,\n"
                 "or --iteration-marker) is a batch; the summary then derives the pipescope configuration that\n"
                 "reproduces one iteration on the simulator and the advice for it (docs/analysis.md).\n\n"
              << options.help();
    return kExitOk;
  }
  std::vector<std::string> rest;
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) == 0) {
      rest.push_back(a);
      // An option's value follows it unless given as --name=value.
      for (const auto& o : options.options())
        if (a == "--" + o.name && !o.valueName.empty() && i + 1 < args.size()) rest.push_back(args[++i]);
    } else {
      paths.push_back(a);
    }
  }
  std::string path = paths.empty() ? std::string() : paths.front();
  try {
    options.parse(rest);
    if (path.empty()) throw UsageError("missing the trace FILE to analyze (see 'pipescope-cli analyze --help')");
  } catch (const UsageError& e) {
    std::cerr << "pipescope-cli analyze: " << e.what() << "\n";
    return kExitUsage;
  }
  std::shared_ptr<Trace> trace;
  TraceFileFormat format{};
  const bool ranks = opensAsRanks(paths, req.worker);
  if (req.bucketsAsked && !ranks) {
    std::cerr << "pipescope-cli analyze: --what-if buckets=K needs the traces of several ranks (a folder of them, "
                 "or several FILEs)\n";
    return kExitUsage;
  }
  try {
    if (ranks) {
      std::vector<std::string> problems;
      trace = loadRanks(paths, req.import, {}, &problems);
      for (const auto& p : problems) std::cerr << "pipescope-cli analyze: " << p << "\n";
      format = TraceFileFormat::ChromeJson;
      if (paths.size() > 1) path = std::to_string(paths.size()) + " files";
    } else {
      path = resolveTracePath(path, req.worker);
      format = detectTraceFileFormat(path);
      trace = loadTraceFile(path, req.import);
    }
  } catch (const std::exception& e) {
    std::cerr << "pipescope-cli analyze: " << e.what() << "\n";
    return kExitRunFailed;
  }
  const bool imported = trace->configHistory().empty();
  // A run that did not finish says why; a file cut off mid-stream says what was recovered.
  if (const RunOutcome o = trace->outcome(); o.state != RunState::Finished && !o.message.empty() && !ranks)
    std::cerr << "pipescope-cli analyze: " << path << ": " << toString(o.state) << ": " << o.message << "\n";
  TraceReportOptions reportOptions{req.profile, req.derivePath, req.noAdvice};
  TraceReport analysed;
  try {
    analysed = analyseTrace(*trace, reportOptions);
  } catch (const UsageError& e) {
    std::cerr << "pipescope-cli analyze: " << e.what() << "\n";
    return kExitUsage;
  }
  const RunReport& report = analysed.report;
  const std::optional<DeviceProfile>& profile = analysed.profile;
  const IterationInfo iterations = trace->iterations();
  if (std::string error; !writeDerivedConfig(*trace, analysed, reportOptions, error)) {
    std::cerr << "pipescope-cli analyze: " << error << "\n";
    return kExitRunFailed;
  }

  if (req.json) {
    nlohmann::json j = summaryJson(report);
    j["file"] = path;
    j["format"] = std::string(toString(format));
    j["lane_count"] = trace->laneCount();
    j["op_count"] = trace->ops().publishedCount();
    if (imported)
      j["iterations"] = {{"count", report.metrics.batches},
                         {"source", iterations.source},
                         {"marker", iterations.marker},
                         {"why_none", iterations.why},
                         {"samples_per_iteration", iterations.samplesPerIteration}};
    j["profile"] = profile ? nlohmann::json(profile->name) : nlohmann::json(nullptr);
    if (ranks) {
      const RankAnalysis rankAnalysis = analyzeRanks(*trace);
      j["ranks"] = rankAnalysisJson(rankAnalysis, trace->ranks());
      j["ranks"]["what_if_buckets"] = bucketWhatIfJson(predictBuckets(*trace, rankAnalysis, req.buckets));
    }
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "Trace " << path << " (" << toString(format) << "): " << trace->laneCount() << " lanes, "
            << trace->ops().publishedCount() << " ops\n";
  printTraceReport(std::cout, *trace, analysed, reportOptions);
  if (ranks) {
    const RankAnalysis rankAnalysis = analyzeRanks(*trace);
    std::cout << formatRankAnalysis(rankAnalysis, trace->ranks())
              << formatBucketWhatIf(predictBuckets(*trace, rankAnalysis, req.buckets));
  }
  return kExitOk;
}

const bool registered = registerCommand(
    {"analyze", "open a trace file (own, Chrome/Perfetto, PyTorch profiler) and print its metrics and analysis",
     analyzeMain});

}  // namespace

}  // namespace pipescope::cli
