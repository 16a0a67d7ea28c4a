// `pipescope-cli validate`: how well the simulator predicts a real GPU.
#include <cstdio>
#include <fstream>
#include <iostream>

#include "Commands.h"
#include "Options.h"
#include "backend/Backend.h"
#include "sim/DeviceProfile.h"
#include "sim/SimulatorBackend.h"
#include "sim/Validation.h"

namespace pipescope::cli {

namespace {

constexpr const char* kUsage =
    "usage: pipescope-cli validate --profile NAME|FILE [--quick] [--stages] [--markdown FILE] [--reps N]\n"
    "                              [--device N] [--measured-profile NAME|FILE]\n\n"
    "Runs the validation matrix (blocking/async, pageable/pinned, 1/2/4/8 streams, both\n"
    "issue orders, copy-heavy/balanced/compute-heavy, small and large batches, CPU\n"
    "workers) on the real GPU and on the simulator with the given profile, and prints\n"
    "per configuration the measured and predicted makespan and the error, then the\n"
    "median and maximum error. Exit code 1 when any configuration failed to run.\n\n";

int validateMain(const std::vector<std::string>& args) {
  std::string profileName, markdown, measuredProfile;
  int device = 0;
  int reps = 3;
  bool quick = false;
  bool stages = false;
  OptionSet options;
  options.value("profile", "NAME|FILE", "the simulator's device profile: a built-in name or a JSON file (required)",
                [&](const std::string& v) { profileName = v; });
  options.flag("quick", "a 14-configuration subset (a few seconds) instead of the full matrix", [&] { quick = true; });
  options.flag("stages", "after each row, print per-batch stage times of both sides (where a miss comes from)",
               [&] { stages = true; });
  options.value("markdown", "FILE", "also write the table as markdown to FILE",
                [&](const std::string& v) { markdown = v; });
  options.value("device", "N", "CUDA device index (default 0)",
                [&](const std::string& v) { device = int(parseInteger("device", v, 0, 63)); });
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
  auto predicted = makeSimulatorBackend(*profile);
  const DeviceInfo measuredDevice = measured.backend->describe();
  const auto cases = validationMatrix(quick);
  const int measuredReps = measuredProfile.empty() ? reps : 1;  // a simulator gives the same makespan each time
  std::cout << "measured:  " << measuredDevice.summary() << " [" << measured.backend->kind() << "]\n"
            << "predicted: simulator, profile '" << profile->name << "' (" << profile->source << ")\n"
            << cases.size() << " configurations, median of " << measuredReps << " run(s) each on the measured side\n\n";
  std::printf("%-40s %12s %19s %12s %9s\n", "configuration", "measured ms", "measured range", "predicted ms", "error %");
  std::fflush(stdout);
  ValidationOptions vo;
  vo.measuredRepetitions = measuredReps;
  vo.warmUp = measuredProfile.empty();
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
  const ValidationReport report = runValidation(*measured.backend, *predicted, cases, vo);
  std::printf("\nmedian |error| %.1f %%, max |error| %.1f %% (%s)%s\n", report.medianAbsErrorPct, report.maxAbsErrorPct,
              report.worstCase.c_str(),
              report.failures ? (", " + std::to_string(report.failures) + " failed").c_str() : "");
  std::printf("measured run-to-run spread %.1f %% (median); %d predictions within the measured range, median "
              "error beyond it %.1f %%\n",
              report.medianSpreadPct, report.withinSpread, report.medianBeyondSpreadPct);
  if (!markdown.empty()) {
    std::ofstream file(markdown);
    file << validationMarkdown(report, "Measured on " + measuredDevice.summary() + " vs simulator profile '" +
                                          profile->name + "'");
    if (!file) {
      std::cerr << "pipescope-cli validate: cannot write '" << markdown << "'\n";
      return kExitRunFailed;
    }
  }
  return report.failures > 0 ? kExitRunFailed : kExitOk;
}

const bool registered = registerCommand(
    {"validate", "compare the simulator's predictions with a real GPU over a matrix of configurations", validateMain});

}  // namespace

}  // namespace pipescope::cli
