// `pipescope-cli validate`: how well the simulator predicts a real GPU.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>

#include "Commands.h"
#include "Options.h"
#include "backend/Backend.h"
#include "io/OutputFile.h"
#include "io/TraceFileError.h"
#include "io/TraceFiles.h"
#include <nlohmann/json.hpp>

#include "sim/DeviceProfile.h"
#include "sim/HostSpeed.h"
#include "sim/RandomCases.h"
#include "sim/RepeatJudgement.h"
#include "sim/SimulatorBackend.h"
#include "sim/Validation.h"
#include "sim/ValidationBreakdown.h"
#include "sim/ValidationFile.h"

namespace pipescope::cli {

namespace {

constexpr const char* kUsage =
    "usage: pipescope-cli validate --profile NAME|FILE [--quick | --random N --seed S [--gpus K]] [--stages]\n"
    "                              [--markdown FILE] [--reps N] [--device N] [--save-measurements FILE]\n"
    "                              [--traces DIR] [--measured-profile NAME|FILE] [--repeat N]\n"
    "       pipescope-cli validate --profile NAME|FILE --measurements FILE[,FILE...] [--traces DIR] [--markdown FILE]\n\n"
    "Runs the validation matrix (blocking/async, pageable/pinned, 1/2/4/8 streams, both\n"
    "issue orders, copy-heavy/balanced/compute-heavy, small and large batches, CPU\n"
    "workers) -- or N configurations drawn at random from every knob with --random,\n"
    "over K GPUs with --gpus K (data or pipeline parallel, all-reduce, buckets,\n"
    "activations, micro-batches) --\n"
    "on the real GPU and on the simulator with the given profile, and prints per\n"
    "configuration the measured and predicted makespan and the error, then the median,\n"
    "90th percentile and maximum error, the bias (mean signed error) and the error per\n"
    "knob value. --save-measurements keeps the GPU's side, so --measurements can judge\n"
    "another profile against it later without a GPU. Each row also keeps the host's\n"
    "kernel launch time in its runs, and the report compares it with the profile's:\n"
    "whether the host ran slower or faster than when the profile was calibrated.\n"
    "--repeat 2 measures the set twice in a row and judges the model beside the\n"
    "machine's own repeat difference (the floor), per row and per knob value, flagging\n"
    "structural misses: rows missed by more than max(25 %, 3 x their repeat difference)\n"
    "in every repeat, in one direction. --measurements A.json,B.json judges saved\n"
    "repeats of one set the same way, offline.\n"
    "Exit code 1 when any configuration failed to run.\n\n";

std::string utcNow() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

/// Which seed the profile was fitted with and which judges it: they must differ.
std::string fitSeedLine(const DeviceProfile& profile, std::optional<std::uint64_t> seed) {
  std::string line = "profile fitted on: " + (profile.fitConfigurations.empty() ? std::string("its own calibration runs")
                                                                                : profile.fitConfigurations);
  if (seed) line += "; judged on the random set with seed " + std::to_string(*seed);
  return line;
}

void printSummary(const ValidationReport& report, bool byKnob) {
  std::printf("\nmedian |error| %.1f %%, 90th percentile %.1f %%, max |error| %.1f %% (%s)%s\n",
              report.medianAbsErrorPct, report.p90AbsErrorPct, report.maxAbsErrorPct, report.worstCase.c_str(),
              report.failures ? (", " + std::to_string(report.failures) + " failed").c_str() : "");
  std::printf("mean signed error (bias) %+.1f %%: %d of %d rows predicted too fast\n", report.meanSignedErrorPct,
              report.predictedTooFast, int(report.rows.size()) - report.failures);
  std::printf("measured run-to-run spread %.1f %% (median); %d predictions within the measured range, median "
              "error beyond it %.1f %%\n",
              report.medianSpreadPct, report.withinSpread, report.medianBeyondSpreadPct);
  if (!byKnob) return;
  std::printf("\nerror by knob value:\n%-14s %-18s %5s %10s %10s %10s\n", "knob", "value", "rows", "median |e|",
              "mean e", "max |e|");
  for (const KnobError& e : errorByKnob(report))
    std::printf("%-14s %-18s %5d %9.1f%% %+9.1f%% %9.1f%%\n", e.knob.c_str(), e.value.c_str(), e.rows,
                e.medianAbsErrorPct, e.meanSignedErrorPct, e.maxAbsErrorPct);
}

/// The host-speed line (HostSpeed.h); empty when no row measured a launch time.
std::string hostSpeedLine(const ValidationReport& report, const DeviceProfile& profile) {
  const auto s = hostSpeedOf(report, profile);
  return s ? describeHostSpeed(*s, profile) : std::string();
}

void printHostSpeed(const ValidationReport& report, const DeviceProfile& profile) {
  if (const std::string line = hostSpeedLine(report, profile); !line.empty()) std::printf("%s\n", line.c_str());
}

std::string reportMarkdown(const ValidationRecord& record, const DeviceProfile& profile) {
  std::string title = "Measured on " + record.measuredDevice + " (" + record.recordedAt + ") vs simulator profile '" +
                      profile.name + "'";
  std::string text = validationMarkdown(record.report, title);
  if (const std::string line = hostSpeedLine(record.report, profile); !line.empty()) text += "\n" + line + "\n";
  text += "\n" + fitSeedLine(profile, record.seed) + "\n\n" + knobErrorMarkdown(errorByKnob(record.report));
  return text;
}

/// Measurements saved before rows kept their launch time: read it from the traces
/// `validate --traces` saved beside them (DIR/NAME.pipescope), where there is one.
void fillLaunchTimesFromTraces(ValidationReport& report, const std::string& dir) {
  int filled = 0, missing = 0;
  for (ValidationRow& r : report.rows) {
    if (r.measuredLaunchNs > 0 || r.measuredNs <= 0) continue;
    const std::string path = (std::filesystem::path(dir) / (r.name + ".pipescope")).string();
    if (!std::filesystem::exists(path)) {
      ++missing;
      continue;
    }
    try {
      r.measuredLaunchNs = launchCallNs(*loadTraceFile(path));
      ++filled;
    } catch (const TraceFileError& e) {
      std::cerr << "pipescope-cli validate: " << e.what() << " (its row's launch time stays unknown)\n";
    }
  }
  if (filled + missing > 0)
    std::cout << "launch times read from " << filled << " saved trace(s) in " << dir
              << (missing ? " (" + std::to_string(missing) + " row(s) have none)" : std::string()) << "\n";
}

bool writeOutput(const std::string& path, const std::string& text) {
  try {
    writeOutputFile(path, [&](std::ostream& out) { out << text; });
    return true;
  } catch (const TraceFileError& e) {
    std::cerr << "pipescope-cli validate: " << e.what() << "\n";
    return false;
  }
}

/// Writes `profile` with the judgement of a random set attached to `path`.
bool attachValidation(DeviceProfile profile, const ValidationRecord& record, const std::string& path) {
  if (!record.seed) {
    std::cerr << "pipescope-cli validate: --attach-to-profile: these measurements are not a random set (no seed)\n";
    return false;
  }
  ProfileValidation v;
  v.device = record.measuredDevice;
  v.seed = *record.seed;
  v.recordedAt = record.recordedAt;
  for (const ValidationRow& r : record.report.rows)
    if (r.ok()) v.runs.push_back({r.config, r.errorPct});
  profile.validation = std::move(v);
  if (!writeOutput(path, profileToJson(profile).dump(2) + "\n")) return false;
  std::cout << "wrote profile '" << profile.name << "' with its error on " << profile.validation->runs.size()
            << " validation runs to " << path << "\n";
  return true;
}

int judgeSavedMeasurements(const std::string& file, const DeviceProfile& profile, Backend& predicted,
                           const std::string& markdown, const std::string& attachTo, const std::string& tracesDir) {
  ValidationRecord record;
  try {
    record = loadValidationRecord(file);
  } catch (const std::runtime_error& e) {
    std::cerr << "pipescope-cli validate: " << e.what() << "\n";
    return kExitUsage;
  }
  if (!tracesDir.empty()) fillLaunchTimesFromTraces(record.report, tracesDir);
  repredict(record.report, predicted);
  std::cout << "measured:  " << record.measuredDevice << " (saved " << record.recordedAt << " in " << file << ")\n"
            << "predicted: simulator, profile '" << profile.name << "' (" << profile.source << ")\n"
            << fitSeedLine(profile, record.seed) << "\n\n";
  std::printf("%-40s %12s %19s %12s %9s\n", "configuration", "measured ms", "measured range", "predicted ms", "error %");
  for (const ValidationRow& r : record.report.rows) {
    if (r.ok())
      std::printf("%-40s %12.3f %9.3f-%-9.3f %12.3f %+9.1f\n", r.name.c_str(), r.measuredNs / 1e6,
                  r.measuredMinNs / 1e6, r.measuredMaxNs / 1e6, r.predictedNs / 1e6, r.errorPct);
    else
      std::printf("%-40s FAILED: %s\n", r.name.c_str(), r.failure.c_str());
  }
  printSummary(record.report, true);
  printHostSpeed(record.report, profile);
  record.profile = profile.name;
  if (!markdown.empty() && !writeOutput(markdown, reportMarkdown(record, profile))) return kExitRunFailed;
  if (!attachTo.empty() && !attachValidation(profile, record, attachTo)) return kExitRunFailed;
  return kExitOk;
}


/// Where repeat `index` (1-based) of `repeats` goes: FILE itself for one repeat,
/// else FILE with "-repeatN" before its extension (m.json -> m-repeat2.json).
std::string repeatPath(const std::string& file, int index, int repeats) {
  if (repeats <= 1) return file;
  const std::filesystem::path p(file);
  const std::string stem = p.stem().string() + "-repeat" + std::to_string(index);
  return (p.parent_path() / (stem + p.extension().string())).string();
}

/// The traces folder of repeat `index`: DIR itself for one repeat, else DIR/repeatN.
std::string tracesDirOf(const std::string& dir, int index, int repeats) {
  return repeats <= 1 ? dir : (std::filesystem::path(dir) / ("repeat" + std::to_string(index))).string();
}

/// The repeat judgement of `repeats` (same set, same profile), printed and, with
/// `markdown`, written after the repeats' own tables.
bool reportRepeats(const std::vector<ValidationReport>& repeats, const std::string& title,
                   const std::string& markdown, std::string markdownBefore) {
  RepeatJudgement j;
  try {
    j = judgeRepeats(repeats);
  } catch (const std::invalid_argument& e) {
    std::cerr << "pipescope-cli validate: " << e.what() << "\n";
    return false;
  }
  std::cout << repeatReportText(j);
  std::cout.flush();
  if (markdown.empty()) return true;
  return writeOutput(markdown, markdownBefore + "\n" + repeatReportMarkdown(j, title));
}

/// Saved repeats of one set (`files`, two or more) judged against `profile`.
int judgeSavedRepeats(const std::vector<std::string>& files, const DeviceProfile& profile, Backend& predicted,
                      const std::string& markdown, const std::string& tracesDir) {
  std::vector<ValidationRecord> records;
  for (const std::string& f : files) {
    try {
      records.push_back(loadValidationRecord(f));
    } catch (const std::runtime_error& e) {
      std::cerr << "pipescope-cli validate: " << e.what() << "\n";
      return kExitUsage;
    }
  }
  for (const ValidationRecord& r : records)
    if (r.measuredDevice != records.front().measuredDevice) {
      std::cerr << "pipescope-cli validate: --measurements: repeats of one set come from one machine, but these were "
                   "measured on different devices ('"
                << records.front().measuredDevice << "' and '" << r.measuredDevice
                << "'); to compare sessions of different hosts use 'pipescope-cli reproducibility'\n";
      return kExitUsage;
    }
  std::cout << "measured:  " << records.front().measuredDevice << ", " << records.size() << " repeats of one set\n"
            << "predicted: simulator, profile '" << profile.name << "' (" << profile.source << ")\n"
            << fitSeedLine(profile, records.front().seed) << "\n";
  std::vector<ValidationReport> reports;
  std::string md;
  for (std::size_t i = 0; i < records.size(); ++i) {
    ValidationRecord& r = records[i];
    if (!tracesDir.empty()) fillLaunchTimesFromTraces(r.report, tracesDir);
    repredict(r.report, predicted);
    std::printf("\nrepeat %zu: %s (saved %s)", i + 1, files[i].c_str(), r.recordedAt.c_str());
    printSummary(r.report, false);
    printHostSpeed(r.report, profile);
    if (!markdown.empty()) md += reportMarkdown(r, profile) + "\n";
    reports.push_back(r.report);
  }
  const std::string title = "Repeats of one set on " + records.front().measuredDevice + " vs simulator profile '" +
                            profile.name + "'";
  return reportRepeats(reports, title, markdown, md) ? kExitOk : kExitRunFailed;
}

/// --gpus K of a set over several GPUs: 2..8.
int parseGpuCount(const std::string& value) {
  const std::string range = "2.." + std::to_string(limits::kMaxGpus);
  long long n = 0;
  try {
    n = parseInteger("gpus", value, std::numeric_limits<long long>::min(), std::numeric_limits<long long>::max());
  } catch (const UsageError&) {
    throw UsageError("--gpus = '" + value + "': not a whole number; a set over several GPUs takes --gpus " + range);
  }
  if (n == 1)
    throw UsageError("--gpus 1 is the one-GPU set, the default: leave --gpus out (a set over several GPUs takes --gpus " +
                     range + ")");
  if (n < 2 || n > limits::kMaxGpus)
    throw UsageError("--gpus " + value + ": a set over several GPUs takes " + range +
                     " GPUs (the simulator models at most " + std::to_string(limits::kMaxGpus) +
                     "); leave --gpus out for the one-GPU set");
  return int(n);
}

/// --gpus K: a random set, drawn here (not read from saved files), on GPUs 0..K-1.
void checkGpus(std::optional<int> gpus, int randomCount, bool savedMeasurements, bool deviceGiven) {
  if (!gpus) return;
  if (savedMeasurements)
    throw UsageError("--measurements judges saved sets, whose configurations name their GPUs: leave --gpus out");
  if (randomCount == 0)
    throw UsageError("--gpus draws a random set over several GPUs: give --random N --seed S with it (the matrix and "
                     "--quick are one-GPU sets)");
  if (deviceGiven)
    throw UsageError("a set over " + std::to_string(*gpus) + " GPUs runs on GPUs 0.." + std::to_string(*gpus - 1) +
                     ": leave --device out");
}

/// The first configuration of a set over several GPUs run once on the GPUs, as the
/// warm-up. Every row needs the same GPUs and NCCL, so where this run fails (fewer
/// GPUs present than the set names, a build without NCCL, NCCL failing to start)
/// the set stops with the backend's error rather than failing row after row.
bool firstRunsOnTheGpus(Backend& measured, const ValidationCase& first, int gpus) {
  std::string failure;
  measureMakespanNs(measured, first.config, failure);
  if (failure.empty()) return true;
  std::cerr << "pipescope-cli validate: the set over " << gpus << " GPUs was not measured: its first configuration ("
            << first.name << ") failed on the GPUs: " << failure
            << "\n(the set runs on GPUs 0.." << gpus - 1
            << ": on a machine with fewer, give --gpus at most as many as it has; without GPUs, judge the profile "
               "against another with --measured-profile)\n";
  return false;
}

int validateMain(const std::vector<std::string>& args) {
  std::string profileName, markdown, measuredProfile, saveMeasurements, tracesDir, sizingProfile, attachTo;
  std::vector<std::string> measurementsFiles;
  int device = 0;
  bool deviceGiven = false;
  int reps = 3;
  int repeats = 1;
  int randomCount = 0;
  std::optional<int> gpus;
  std::optional<std::uint64_t> seed;
  bool quick = false;
  bool stages = false;
  OptionSet options;
  options.value("profile", "NAME|FILE", "the simulator's device profile: a built-in name or a JSON file (required)",
                [&](const std::string& v) { profileName = v; });
  options.flag("quick", "a 14-configuration subset (a few seconds) instead of the full matrix", [&] { quick = true; });
  options.value("random", "N",
                "N configurations drawn at random from every knob (1..1000), each sized to run 5..300 ms; needs --seed",
                [&](const std::string& v) { randomCount = int(parseInteger("random", v, 1, 1000)); });
  options.value("seed", "S", "seed of the random set (0..2^63-1): the same seed draws the same set on any machine",
                [&](const std::string& v) { seed = std::uint64_t(parseInteger("seed", v, 0, std::numeric_limits<long long>::max())); });
  options.value("gpus", "K",
                "draw the --random set over GPUs 0..K-1 (2..8): data or pipeline parallel with the several-GPU "
                "knobs, each GPU running the one-GPU knobs (default: one GPU)",
                [&](const std::string& v) { gpus = parseGpuCount(v); });
  options.value("sizing-profile", "NAME|FILE",
                "profile whose predictions size the random runs' batch counts (default: --profile)",
                [&](const std::string& v) { sizingProfile = v; });
  options.value("save-measurements", "FILE",
                "also write the measured side (configurations, every run's makespan) as JSON, for --measurements",
                [&](const std::string& v) { saveMeasurements = v; });
  options.value("measurements", "FILE[,FILE...]",
                "judge --profile against measurements saved earlier with --save-measurements (no GPU needed); two or "
                "more files of the same set (its repeats on one machine) add the repeat judgement",
                [&](const std::string& v) { measurementsFiles = parseNameListValue("measurements", v); });
  options.value("repeat", "N",
                "measure the whole set N times in a row (2..5) and judge the model beside the repeats' own "
                "difference: the floor per row and per knob value, and structural misses; --save-measurements "
                "FILE then writes FILE-repeat1.json, FILE-repeat2.json, ...",
                [&](const std::string& v) { repeats = int(parseInteger("repeat", v, 2, 5)); });
  options.value("attach-to-profile", "FILE",
                "write the profile with this judgement attached (random sets only): advice and sweep predictions "
                "made with it then quote its error on similar runs",
                [&](const std::string& v) { attachTo = v; });
  options.value("traces", "DIR",
                "save the last measured run of each configuration as DIR/NAME.pipescope; with --measurements, read "
                "the rows' kernel launch times from the traces saved there when the file lacks them",
                [&](const std::string& v) { tracesDir = v; });
  options.flag("stages", "after each row, print per-batch stage times of both sides (where a miss comes from)",
               [&] { stages = true; });
  options.value("markdown", "FILE", "also write the table as markdown to FILE",
                [&](const std::string& v) { markdown = v; });
  options.value("device", "N", "CUDA device index (default 0; a set over several GPUs uses GPUs 0..K-1)",
                [&](const std::string& v) {
                  device = int(parseInteger("device", v, 0, 63));
                  deviceGiven = true;
                });
  options.value("reps", "N", "runs per configuration on the GPU; the median makespan counts (default 3)",
                [&](const std::string& v) { reps = int(parseInteger("reps", v, 1, 50)); });
  options.value("measured-profile", "NAME|FILE",
                "use the simulator with this profile as the 'measured' side instead of the GPU "
                "(compares two profiles; works without a GPU)",
                [&](const std::string& v) { measuredProfile = v; });
  if (wantsHelp(args)) {
    std::cout << kUsage << options.help();
    return kExitOk;
  }
  try {
    options.parse(args);
    if (profileName.empty()) throw UsageError("--profile is required (a built-in profile name or a profile JSON file)");
    if (randomCount > 0 && !seed)
      throw UsageError("--random needs --seed S (the seed names the set; use one you did not fit the profile with)");
    if (seed && randomCount == 0) throw UsageError("--seed goes with --random N");
    if (randomCount > 0 && quick) throw UsageError("--quick and --random choose different sets: give one of them");
    checkGpus(gpus, randomCount, !measurementsFiles.empty(), deviceGiven);
    if (!attachTo.empty() && randomCount == 0 && measurementsFiles.empty())
      throw UsageError("--attach-to-profile needs a random set (--random N --seed S, or --measurements of one)");
    if (!measurementsFiles.empty() &&
        (randomCount > 0 || quick || !measuredProfile.empty() || !saveMeasurements.empty() || repeats > 1))
      throw UsageError("--measurements judges saved measurements: it takes no --random, --quick, --measured-profile, "
                       "--save-measurements or --repeat (give the repeats' files, comma-separated)");
    if (!attachTo.empty() && (repeats > 1 || measurementsFiles.size() > 1))
      throw UsageError("--attach-to-profile attaches the judgement of one set: give one measurement file, without "
                       "--repeat");
  } catch (const UsageError& e) {
    std::cerr << "pipescope-cli validate: " << e.what() << "\nSee 'pipescope-cli validate --help'.\n";
    return kExitUsage;
  }
  std::string error;
  const auto profile = loadDeviceProfile(profileName, error);
  if (!profile) {
    std::cerr << "pipescope-cli validate: " << error << "\n";
    return kExitUsage;
  }
  auto predicted = makeSimulatorBackend(*profile);
  if (measurementsFiles.size() > 1) return judgeSavedRepeats(measurementsFiles, *profile, *predicted, markdown, tracesDir);
  if (!measurementsFiles.empty())
    return judgeSavedMeasurements(measurementsFiles.front(), *profile, *predicted, markdown, attachTo, tracesDir);
  BackendSelection measured;
  if (!measuredProfile.empty()) {
    BackendOptions o;
    o.choice = BackendChoice::Simulator;
    o.simulatorProfile = measuredProfile;
    measured = makeBackend(o);
    if (!measured.backend) {
      std::cerr << "pipescope-cli validate: " << measured.error << "\n";
      return kExitUsage;
    }
  } else {
    BackendOptions o;
    o.choice = BackendChoice::Cuda;
    o.cudaDevice = device;
    measured = makeBackend(o);
    if (!measured.backend) {
      std::cerr << "pipescope-cli validate: validation compares the simulator with a real GPU: " << measured.error
                << " (to compare two profiles without a GPU, use --measured-profile)\n";
      return kExitRunFailed;
    }
  }
  const DeviceInfo measuredDevice = measured.backend->describe();
  std::vector<ValidationCase> cases;
  if (randomCount > 0) {
    std::optional<DeviceProfile> sizing = profile;
    if (!sizingProfile.empty()) sizing = loadDeviceProfile(sizingProfile, error);
    if (!sizing) {
      std::cerr << "pipescope-cli validate: " << error << "\n";
      return kExitUsage;
    }
    cases = gpus ? drawRandomMultiGpuCases(randomCount, *seed, *gpus, *sizing)
                 : drawRandomCases(randomCount, *seed, *sizing);
  } else {
    cases = validationMatrix(quick);
  }
  if (!tracesDir.empty()) {
    std::error_code ec;
    for (int r = 1; r <= repeats; ++r)
      std::filesystem::create_directories(tracesDirOf(tracesDir, r, repeats), ec);
    if (ec) {
      std::cerr << "pipescope-cli validate: cannot create the traces folder '" << tracesDir << "': " << ec.message()
                << "\n";
      return kExitUsage;
    }
  }
  const int measuredReps = measuredProfile.empty() ? reps : 1;  // a simulator gives the same makespan each time
  std::cout << "measured:  " << measuredDevice.summary() << " [" << measured.backend->kind() << "]\n"
            << "predicted: simulator, profile '" << profile->name << "' (" << profile->source << ")\n"
            << cases.size() << " configurations"
            << (gpus ? " over " + std::to_string(*gpus) + " GPUs" : std::string())
            << (seed ? " drawn at random with seed " + std::to_string(*seed) : std::string()) << ", median of "
            << measuredReps << " run(s) each on the measured side"
            << (repeats > 1 ? ", the whole set " + std::to_string(repeats) + " times in a row" : std::string()) << "\n"
            << fitSeedLine(*profile, seed) << "\n";
  // A set over several GPUs on the GPUs: the warm-up run first, alone, as a check.
  const bool checkedFirst = gpus && measuredProfile.empty();
  if (checkedFirst && !firstRunsOnTheGpus(*measured.backend, cases.front(), *gpus)) return kExitRunFailed;
  std::vector<ValidationReport> reports;
  std::string md;
  int failures = 0;
  for (int rep = 1; rep <= repeats; ++rep) {
    if (repeats > 1) std::printf("\nrepeat %d of %d\n", rep, repeats);
    std::printf("%-40s %12s %19s %12s %9s\n", "configuration", "measured ms", "measured range", "predicted ms",
                "error %");
    std::fflush(stdout);
    ValidationOptions vo;
    vo.measuredRepetitions = measuredReps;
    // The later repeats follow at once: the GPU is warm (as after the check above).
    vo.warmUp = measuredProfile.empty() && rep == 1 && !checkedFirst;
    const std::string traces = tracesDir.empty() ? std::string() : tracesDirOf(tracesDir, rep, repeats);
    if (!traces.empty())
      vo.onMeasuredTrace = [&](std::size_t i, const Trace& t) {
        const std::string path = (std::filesystem::path(traces) / (cases[i].name + ".pipescope")).string();
        try {
          saveTraceFile(t, path, TraceFileFormat::Native);
        } catch (const TraceFileError& e) {
          std::cerr << "pipescope-cli validate: " << e.what() << "\n";
        }
      };
    vo.onRow = [stages](std::size_t, std::size_t, const ValidationRow& r) {
      if (r.ok()) {
        std::printf("%-40s %12.3f %9.3f-%-9.3f %12.3f %+9.1f\n", r.name.c_str(), r.measuredNs / 1e6,
                    r.measuredMinNs / 1e6, r.measuredMaxNs / 1e6, r.predictedNs / 1e6, r.errorPct);
        if (stages)
          std::printf("    measured  %s\n    predicted %s\n", r.measuredStages.c_str(), r.predictedStages.c_str());
      } else {
        std::printf("%-40s FAILED: %s\n", r.name.c_str(), r.failure.c_str());
      }
      std::fflush(stdout);
    };
    ValidationRecord record;
    record.report = runValidation(*measured.backend, *predicted, cases, vo);
    record.measuredDevice = measuredDevice.summary();
    record.profile = profile->name;
    record.seed = seed;
    record.recordedAt = utcNow();
    printSummary(record.report, randomCount > 0);
    printHostSpeed(record.report, *profile);
    failures += record.report.failures;
    // Each repeat is saved as soon as it is measured: a later failure loses nothing recorded.
    if (!saveMeasurements.empty()) {
      const std::string path = repeatPath(saveMeasurements, rep, repeats);
      if (!writeOutput(path, validationRecordToJson(record))) return kExitRunFailed;
      if (repeats > 1) std::cout << "wrote the measurements of repeat " << rep << " to " << path << "\n";
    }
    if (!markdown.empty()) md += reportMarkdown(record, *profile) + (repeats > 1 ? "\n" : "");
    if (!attachTo.empty() && !attachValidation(*profile, record, attachTo)) return kExitRunFailed;
    reports.push_back(std::move(record.report));
  }
  if (repeats > 1) {
    const std::string title =
        "The set measured " + std::to_string(repeats) + " times in a row on " + measuredDevice.summary() +
        " vs simulator profile '" + profile->name + "'";
    if (!reportRepeats(reports, title, markdown, md)) return kExitRunFailed;
  } else if (!markdown.empty() && !writeOutput(markdown, md)) {
    return kExitRunFailed;
  }
  return failures > 0 ? kExitRunFailed : kExitOk;
}

const bool registered = registerCommand(
    {"validate", "compare the simulator's predictions with a real GPU over a matrix of configurations", validateMain});

}  // namespace

}  // namespace pipescope::cli
