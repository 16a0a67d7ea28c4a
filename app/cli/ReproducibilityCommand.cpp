// `pipescope-cli reproducibility`: how far one GPU's own measurements of the same
// configurations differ between sessions -- the floor under any simulator's error.
#include <cstdio>
#include <iostream>

#include "Commands.h"
#include "Options.h"
#include "io/OutputFile.h"
#include "io/TraceFileError.h"
#include "sim/ReproducibilityFloor.h"
#include "sim/Validation.h"
#include "sim/ValidationBreakdown.h"
#include "sim/ValidationFile.h"

namespace pipescope::cli {

namespace {

constexpr const char* kUsage =
    "usage: pipescope-cli reproducibility --measurements A.json,B.json[,...] [--min-sets N] [--markdown FILE]\n\n"
    "Reads measurements of one GPU that 'validate --save-measurements' saved in different\n"
    "sessions (the same --random seed, or the matrix, on fresh hosts) and predicts every\n"
    "row from the other sessions' measurements of exactly that configuration (their\n"
    "median). The differences are the error no fixed prediction -- a simulator profile\n"
    "included -- is expected to beat on those machines: judge a profile's validation\n"
    "against this floor, knob by knob, before blaming the model.\n\n";

std::string summaryText(const ReproducibilityFloor& floor, int minSets) {
  const ValidationReport& r = floor.report;
  char line[512];
  std::string text;
  std::snprintf(line, sizeof line,
                "%d configurations measured in %d or more of the %d sets; %zu rows judged, each against the median "
                "of the other sets' measurements of its configuration (%d rows skipped: their configuration is in "
                "fewer other sets)\n",
                floor.configurations, minSets + 1, floor.sets, r.rows.size(), floor.rowsWithoutPeers);
  text += line;
  std::snprintf(line, sizeof line,
                "median |difference| %.1f %%, 90th percentile %.1f %%, max %.1f %% (%s); mean signed %+.1f %%\n",
                r.medianAbsErrorPct, r.p90AbsErrorPct, r.maxAbsErrorPct, r.worstCase.c_str(), r.meanSignedErrorPct);
  text += line;
  std::snprintf(line, sizeof line, "within a session the runs of a row spread %.1f %% (median, fastest to slowest)\n",
                r.medianSpreadPct);
  return text + line;
}

/// Which file is set N (rows are named "N/ROW"), when it was measured, which set it is.
std::string setList(const std::vector<ValidationRecord>& sets, const std::vector<std::string>& files) {
  std::string text = "sets:\n";
  for (std::size_t i = 0; i < sets.size(); ++i)
    text += "- set " + std::to_string(i + 1) + ": " + files[i] + " (" +
            (sets[i].recordedAt.empty() ? std::string("time unknown") : sets[i].recordedAt) + ", " +
            (sets[i].seed ? "seed " + std::to_string(*sets[i].seed) : std::string("the matrix")) + ")\n";
  return text;
}

int reproducibilityMain(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string markdown;
  int minSets = 2;
  OptionSet options;
  options.value("measurements", "FILE,FILE,...",
                "measurements of one GPU saved by 'validate --save-measurements' in different sessions (two or more)",
                [&](const std::string& v) { files = parseNameListValue("measurements", v); });
  options.value("min-sets", "N",
                "judge a row only when its configuration was measured in at least N other sets (default 2)",
                [&](const std::string& v) { minSets = int(parseInteger("min-sets", v, 1, 1000)); });
  options.value("markdown", "FILE", "also write the rows and the difference per knob value as markdown to FILE",
                [&](const std::string& v) { markdown = v; });
  if (wantsHelp(args)) {
    std::cout << kUsage << options.help();
    return kExitOk;
  }
  try {
    options.parse(args);
    if (files.size() < 2)
      throw UsageError("--measurements needs two or more measurement files, separated by commas");
    if (minSets > int(files.size()) - 1)
      throw UsageError("--min-sets " + std::to_string(minSets) + " needs at least " + std::to_string(minSets + 1) +
                       " measurement files; got " + std::to_string(files.size()));
  } catch (const UsageError& e) {
    std::cerr << "pipescope-cli reproducibility: " << e.what()
              << "\nSee 'pipescope-cli reproducibility --help'.\n";
    return kExitUsage;
  }
  std::vector<ValidationRecord> sets;
  for (const std::string& f : files) {
    try {
      sets.push_back(loadValidationRecord(f));
    } catch (const std::runtime_error& e) {
      std::cerr << "pipescope-cli reproducibility: " << e.what() << "\n";
      return kExitUsage;
    }
  }
  ReproducibilityFloor floor;
  try {
    floor = reproducibilityFloor(sets, minSets);
  } catch (const std::invalid_argument& e) {
    std::cerr << "pipescope-cli reproducibility: " << e.what() << "\n";
    return kExitUsage;
  }
  if (floor.report.rows.empty()) {
    std::cerr << "pipescope-cli reproducibility: no configuration was measured in " << minSets + 1
              << " or more of these sets: save sets of the same seed (validate --random N --seed S "
                 "--save-measurements F) in several sessions, or lower --min-sets\n";
    return kExitRunFailed;
  }
  const std::string summary = summaryText(floor, minSets) + setList(sets, files);
  std::cout << "reproducibility floor of " << sets.front().measuredDevice << "\n" << summary;
  const std::vector<KnobError> byKnob = errorByKnob(floor.report);
  std::printf("\ndifference by knob value:\n%-14s %-18s %5s %10s %10s %10s\n", "knob", "value", "rows",
              "median |d|", "mean d", "max |d|");
  for (const KnobError& e : byKnob)
    std::printf("%-14s %-18s %5d %9.1f%% %+9.1f%% %9.1f%%\n", e.knob.c_str(), e.value.c_str(), e.rows,
                e.medianAbsErrorPct, e.meanSignedErrorPct, e.maxAbsErrorPct);
  if (markdown.empty()) return kExitOk;
  const std::string title = "Reproducibility floor of " + sets.front().measuredDevice +
                            " (\"predicted\" = the median of the other sets' measurements)";
  try {
    writeOutputFile(markdown, [&](std::ostream& o) {
      o << validationMarkdown(floor.report, title) << "\n" << summary << "\n" << knobErrorMarkdown(byKnob);
    });
  } catch (const TraceFileError& e) {
    std::cerr << "pipescope-cli reproducibility: " << e.what() << "\n";
    return kExitRunFailed;
  }
  return kExitOk;
}

const bool registered = registerCommand(
    {"reproducibility",
     "how far one GPU's measurements of the same configurations differ between sessions (the floor under any "
     "simulator's error)",
     reproducibilityMain});

}  // namespace

}  // namespace pipescope::cli
