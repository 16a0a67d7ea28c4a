// `pipescope-cli run`: one pipeline run with a summary of what limited it.
#include <chrono>
#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>
#include <thread>
#include <unistd.h>

#include "Commands.h"
#include "MachineNotice.h"
#include "StopSignals.h"
#include "RunOptions.h"
#include "RunProgress.h"
#include "RunSummary.h"
#include "TraceOutput.h"
#include "analysis/PredictionProfile.h"
#include "io/OutputFile.h"
#include "io/TraceStreamWriter.h"
#include "runner/EngineThread.h"
#include "sim/DeviceProfile.h"

namespace pipescope::cli {

namespace {

int usageError(const std::string& message) {
  std::cerr << "pipescope-cli run: " << message << "\nSee 'pipescope-cli run --help'.\n";
  return kExitUsage;
}

int invalidConfig(const std::vector<ConfigIssue>& issues, const ConfigOrigins& origins) {
  std::cerr << "pipescope-cli run: invalid configuration:\n";
  for (const auto& i : issues) std::cerr << "  " << origins.describe(i) << "\n";
  std::cerr << "See 'pipescope-cli run --help'.\n";
  return kExitUsage;
}

int runMain(const std::vector<std::string>& args) {
  RunOptionParser parser;
  if (wantsHelp(args)) {
    std::cout << parser.help();
    return kExitOk;
  }
  RunRequest req;
  try {
    req = parser.parse(args);
  } catch (const UsageError& e) {
    return usageError(e.what());
  } catch (const std::exception& e) {  // an unreadable or malformed --config file
    return usageError(e.what());
  }
  if (auto issues = validate(req.config); !issues.empty()) return invalidConfig(issues, req.origins);

  BackendSelection selection = makeBackend(req.backend);
  if (!selection.backend) {
    std::cerr << "pipescope-cli run: " << selection.error << "\n";
    return kExitRunFailed;
  }
  EngineThread engine(std::move(selection.backend));
  StopSignals stopSignals;  // main() installed them first; a signal since then stops the run
  const bool stream = !req.tracePath.empty() && streamsTrace(req.tracePath);
  std::shared_ptr<Trace> trace;
  try {
    trace = engine.start(req.config, req.maxOps, /*keepUntilStreamed=*/stream);
  } catch (const ConfigError& e) {
    return invalidConfig(e.issues(), req.origins);
  }
  // A stop signal that arrived before the run began ends it at its first batch boundary.
  bool stopRequested = false;
  if (stopSignals.requested()) {
    engine.requestStop();
    stopRequested = true;
  }
  std::unique_ptr<TraceStreamWriter> writer;
  if (stream) {
    try {
      writer = std::make_unique<TraceStreamWriter>(trace, req.tracePath);
    } catch (const std::exception& e) {
      engine.requestStop();
      engine.wait();
      std::cerr << "pipescope-cli run: " << e.what() << "\n";
      return kExitRunFailed;
    }
  }

  RunProgress progress(!req.noProgress && (req.progress || ::isatty(STDERR_FILENO)), req.config.batchCount);
  while (engine.running()) {
    if (!stopRequested && stopSignals.requested()) {
      engine.requestStop();
      stopRequested = true;
    }
    progress.update(*trace);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  engine.wait();
  // The signal that stopped the run goes into its outcome, so the trace's end marker
  // and the summary both say what stopped it.
  const std::string stoppedBy = stopRequested ? StopSignals::name() : std::string();
  if (!stoppedBy.empty() && trace->outcome().state == RunState::Stopped)
    trace->setOutcome({RunState::Stopped, "stopped by " + stoppedBy});

  RunReport report;
  report.config = req.config;
  report.presetName = req.presetName;
  report.device = trace->device();
  report.backendNote = selection.note;
  report.outcome = trace->outcome();
  if (report.outcome.state == RunState::Stopped) report.stoppedBy = stoppedBy;
  report.metrics = computeMetrics(*trace);
  report.droppedOps = trace->ops().droppedCount();
  if (req.json || !req.quiet) {  // nothing prints it otherwise: skip the simulated advice
    // Advice predicts with the simulator profile of --profile (the run's own on the
    // simulator); a GPU run without one, with this machine's calibration of the GPU,
    // else the built-in profile of its model.
    std::optional<DeviceProfile> profile;
    if (report.device.backend == "cuda" && !req.profileGiven) {
      const PredictionProfileChoice choice = predictionProfileFor(report.device);
      if (!req.quiet) printMachineNotice(choice, req.backend.cudaDevice, std::cerr);
      profile = choice.profile;
    } else {
      std::string profileError;
      profile = loadDeviceProfile(req.backend.simulatorProfile, profileError);
    }
    report.analysis = analyseRun(*trace, report.metrics, profile ? &*profile : nullptr);
  }

  int exitCode = kExitOk;
  if (!req.tracePath.empty()) {
    try {
      if (writer) {
        // Writing the rest can take a while (a slow disk, a FIFO read slowly); a stop
        // signal now still lets it finish, a second one of the same kind ends it.
        progress.finishing(req.tracePath);
        writer->finish();
      } else {
        saveTrace(*trace, req.tracePath);
      }
      report.tracePath = req.tracePath;
    } catch (const std::exception& e) {
      std::cerr << "pipescope-cli run: " << e.what() << "\n";
      exitCode = kExitRunFailed;
    }
  }

  progress.finish();

  // With the trace on standard output, the summary must not mix into it.
  std::ostream& summaryOut = isStandardOutputPath(req.tracePath) ? std::cerr : std::cout;
  if (req.json)
    summaryOut << summaryJson(report).dump(2) << "\n";
  else if (!req.quiet)
    summaryOut << formatSummary(report);
  summaryOut.flush();

  if (report.outcome.state == RunState::Failed) {
    std::cerr << "pipescope-cli run: the run failed: " << report.outcome.message << "\n";
    return StopSignals::exitCode(kExitRunFailed);
  }
  if (report.outcome.state == RunState::Stopped && !req.quiet)
    std::cerr << "pipescope-cli run: stopped by " << (stoppedBy.empty() ? "request" : StopSignals::describe())
              << "; the summary covers what was recorded.\n";
  else if (StopSignals::requested() && !req.quiet)
    std::cerr << "pipescope-cli run: " << StopSignals::describe()
              << " arrived after the run had finished; the trace and the summary are complete.\n";
  return StopSignals::exitCode(exitCode);
}

const bool registered = registerCommand(
    {"run", "run the pipeline on a GPU or the simulator and explain what limited it", runMain,
     /*stopsOnInterrupt=*/true});

}  // namespace

}  // namespace pipescope::cli
