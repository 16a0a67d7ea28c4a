#include "TraceReport.h"

#include <nlohmann/json.hpp>

#include "Options.h"
#include "analysis/DerivedConfig.h"
#include "config/ConfigJson.h"
#include "io/OutputFile.h"
#include "metrics/Metrics.h"

namespace pipescope::cli {

std::string iterationsLine(const IterationInfo& it, std::int64_t batches) {
  if (batches <= 0) return "none found (see Limits)";
  // A trace saved after the analysis keeps its batches but not how they were found.
  if (it.source.empty()) return std::to_string(batches) + ", as the trace's batches";
  std::string s = std::to_string(batches) + " from " + it.source + ", each starting at '" + it.marker + "'";
  if (it.samplesPerIteration > 0)
    s += "; " + std::to_string(it.samplesPerIteration) + " samples each (" + it.samplesSource + ")";
  else
    s += "; batch size unknown (--batch-size N gives samples/s)";
  return s;
}

TraceReport analyseTrace(const Trace& trace, const TraceReportOptions& options) {
  TraceReport r;
  r.imported = trace.configHistory().empty();
  r.report.configKnown = !r.imported;
  r.report.config = trace.config();
  r.report.device = trace.device();
  r.report.outcome = trace.outcome();
  r.report.metrics = computeMetrics(trace);
  if (!options.noAdvice || !options.derivePath.empty()) {
    r.profile = r.imported ? profileForTrace(r.report.device, options.profile, r.profileWhy)
                           : (options.profile.empty() ? std::nullopt : loadDeviceProfile(options.profile, r.profileWhy));
    if (!r.profile && !options.profile.empty())
      throw UsageError("--profile = '" + options.profile + "': " + r.profileWhy);
  }
  r.report.analysis = analyseRun(trace, r.report.metrics,
                                 options.noAdvice && options.derivePath.empty() ? nullptr
                                 : r.profile                                   ? &*r.profile
                                                                               : nullptr);
  if (options.noAdvice && r.report.analysis) r.report.analysis->advice.reset();
  return r;
}

bool writeDerivedConfig(const Trace& trace, const TraceReport& r, const TraceReportOptions& options,
                        std::string& error) {
  if (options.derivePath.empty()) return true;
  try {
    if (!r.imported) {
      // A native run carries its configuration: write it, nothing to derive.
      writeOutputFile(options.derivePath,
                      [&](std::ostream& out) { out << configToJson(trace.config()).dump(2) << "\n"; });
      return true;
    }
    const std::optional<DerivedConfig>& derived = r.report.analysis->derived;
    if (!derived || !derived->ok()) {
      const IterationInfo iterations = trace.iterations();
      error = "cannot write " + options.derivePath + ": " +
              (derived ? derived->failure
                       : "no configuration can be derived without iterations" +
                             (iterations.why.empty() ? std::string() : ": " + iterations.why));
      return false;
    }
    writeOutputFile(options.derivePath, [&](std::ostream& out) { out << configToJson(derived->config).dump(2) << "\n"; });
  } catch (const std::exception& e) {
    error = e.what();
    return false;
  }
  return true;
}

void printTraceReport(std::ostream& out, const Trace& trace, const TraceReport& r, const TraceReportOptions& options) {
  if (r.imported)
    out << "Iterations\n  " << wrap(iterationsLine(trace.iterations(), r.report.metrics.batches), 100, 2) << "\n";
  out << formatSummary(r.report);
  const std::optional<DerivedConfig>& derived = r.report.analysis->derived;
  if (r.imported && derived) {
    out << "Derived configuration (" << r.profileWhy << ")\n";
    for (const auto& line : describeDerivedConfig(*derived)) out << "  " << wrap(line, 100, 2) << "\n";
    if (!options.derivePath.empty())
      out << "  written to " << options.derivePath << "; 'pipescope-cli sweep --config " << options.derivePath
          << " --profile " << derived->profileName << "' sweeps batch size x streams\n";
  }
}

}  // namespace pipescope::cli
