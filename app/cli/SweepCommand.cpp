// `pipescope-cli sweep`: a batch size x stream count grid with a recommendation.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <thread>
#include <unistd.h>

#include "Commands.h"
#include "sim/DeviceProfile.h"
#include "MachineNotice.h"
#include "StopSignals.h"
#include "analysis/PredictionProfile.h"
#include "sim/SimulatorBackend.h"
#include "RunSummary.h"
#include "SweepOptions.h"
#include "SweepTable.h"
#include "sweep/Recommendation.h"
#include "sweep/SweepFiles.h"
#include "sweep/SweepPrediction.h"
#include "sweep/SweepRunner.h"

namespace pipescope::cli {

namespace {

constexpr const char* kName = "pipescope-cli sweep: ";

int usageError(const std::string& message) {
  std::cerr << kName << message << "\nSee 'pipescope-cli sweep --help'.\n";
  return kExitUsage;
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, s < 10 ? "%.1f s" : "%.0f s", s);
  return buf;
}

/// "point 3/16 (4 MiB x 2 streams), 1.2 s elapsed, about 3.4 s left" on stderr: redrawn
/// in place on a terminal, one line per point in a log.
class SweepProgressLine {
 public:
  SweepProgressLine(bool enabled, bool variesMemory, bool variesModel)
      : enabled_(enabled), terminal_(::isatty(STDERR_FILENO)), memory_(variesMemory), model_(variesModel) {}
  void update(const SweepProgress& p) {
    if (!enabled_ || !p.point) return;
    std::string line = "point " + std::to_string(p.pointsDone + 1) + "/" + std::to_string(p.totalPoints) + " (" +
                       pointLabel(p.point->config, memory_, model_) + ")";
    if (p.repetition > 0) line += ", repetition " + std::to_string(p.repetition + 1);
    line += ", " + seconds(p.elapsedSec) + " elapsed";
    if (p.etaSec >= 0) line += ", about " + seconds(p.etaSec) + " left";
    std::lock_guard lock(mutex_);
    if (terminal_)
      std::cerr << "\r\033[K" << line << std::flush;
    else
      std::cerr << line << "\n";
    shown_ = true;
  }
  void finish() {
    std::lock_guard lock(mutex_);
    if (shown_ && terminal_) std::cerr << "\r\033[K" << std::flush;
  }

 private:
  bool enabled_, terminal_, memory_, model_;
  bool shown_ = false;
  std::mutex mutex_;
};

std::string heading(const SweepResult& r, const SweepRequest& req) {
  const SweepSpec& s = r.spec;
  std::string h = "Sweep on " + r.device.name +
                  (r.backend == "simulator" ? ", simulator profile " + r.device.profile : ", " + r.backend) + ": " +
                  std::to_string(r.points.size()) + " of " + std::to_string(r.totalPoints) + " points, ";
  h += s.timeBudgetSec > 0 ? "about " + seconds(s.timeBudgetSec) + " (at least " + std::to_string(s.batches) +
                                 " batches) per point"
                           : std::to_string(s.batches) + " measured batches per point";
  h += " after " + std::to_string(s.warmupBatches) + " warm-up";
  const int reps = r.points.empty() || r.points.front().repetitions.empty() ? s.repeats
                                                                             : int(r.points.front().repetitions.size());
  h += ", " + std::to_string(reps) + (reps == 1 ? " repetition" : " repetitions");
  if (!req.presetName.empty()) h += "; preset " + req.presetName;
  h += "; took " + seconds(r.wallSeconds);
  if (!r.predicted.empty()) h += "; predicted = simulator profile " + r.predictedDevice.profile;
  return h + "\n";
}

/// How far the simulator profile behind the figures was off on validation runs like
/// the recommended configuration; empty when the profile carries no validation.
std::string modelErrorLine(const std::string& profileName, const Recommendation& rec,
                           const std::vector<SweepPointResult>& points) {
  if (profileName.empty() || !rec.valid) return {};
  std::string error;
  const auto profile = loadDeviceProfile(profileName, error);
  if (!profile || !profile->validation) return {};
  const auto e = similarRunsError(*profile->validation, points[rec.chosenIndex].config);
  if (!e) return {};
  return "Simulator profile '" + profile->name + "' (validated on " + profile->validation->device + ", random set " +
         std::to_string(profile->validation->seed) + "): " + e->text + ".\n";
}

int sweepMain(const std::vector<std::string>& args) {
  SweepOptionParser parser;
  if (wantsHelp(args)) {
    std::cout << parser.help();
    return kExitOk;
  }
  SweepRequest req;
  try {
    req = parser.parse(args);
  } catch (const std::exception& e) {  // UsageError, or an unreadable --config file
    return usageError(e.what());
  }

  BackendSelection selection = makeBackend(req.backend);
  if (!selection.backend) {
    std::cerr << kName << selection.error << "\n";
    return kExitRunFailed;
  }
  if (!selection.note.empty() && !req.quiet) std::cerr << kName << selection.note << "\n";
  if (!req.repeatGiven && selection.backend->kind() == "simulator") req.spec.repeats = 1;
  if (auto errors = validateSweep(req.spec, &req.origins); !errors.empty()) {
    std::cerr << kName << "invalid sweep:\n";
    for (const auto& e : errors) std::cerr << "  " << e << "\n";
    std::cerr << "See 'pipescope-cli sweep --help'.\n";
    return kExitUsage;
  }
  std::unique_ptr<Backend> predictor;
  if (!req.predictProfile.empty()) {
    BackendSelection sim = makeBackend({BackendChoice::Simulator, req.predictProfile, 0.0, 0});
    if (!sim.backend) return usageError("--predict: " + sim.error);
    predictor = std::move(sim.backend);
  } else if (selection.backend->kind() == "cuda") {
    // A GPU sweep stands each point beside the model's prediction: this machine's
    // calibration of the GPU, else the built-in profile of its model.
    const PredictionProfileChoice choice = predictionProfileFor(selection.backend->describe());
    if (!req.quiet) printMachineNotice(choice, req.backend.cudaDevice, std::cerr);
    if (choice.profile) {
      predictor = makeSimulatorBackend(*choice.profile);
      req.predictProfile = choice.profile->name;
    }
  }

  SweepProgressLine progress(!req.noProgress && (req.progress || ::isatty(STDERR_FILENO)),
                             req.spec.memories.size() > 1, req.spec.models.size() > 1);
  SweepCancel cancel;
  SweepResult result;
  std::string failure;
  std::atomic<bool> done{false};
  // In place before the first progress line, so a stop signal after it always cancels
  // between operations (the finished points are kept) and never kills the process.
  StopSignals stopSignals;
  // A signal that came before the start (pending at main) stops the sweep before its
  // first point: the worker may finish a small sweep before the loop below looks.
  if (stopSignals.requested()) cancel.cancel();
  std::thread worker([&] {
    try {
      SweepCallbacks cb;
      cb.progress = [&](const SweepProgress& p) { progress.update(p); };
      result = runSweep(req.spec, *selection.backend, cb, &cancel);
      if (predictor && !cancel.cancelled()) predictSweep(result, *predictor, &cancel);
    } catch (const std::exception& e) {
      failure = e.what();
    }
    done = true;
  });
  while (!done) {
    if (stopSignals.requested() && !cancel.cancelled()) cancel.cancel();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  worker.join();
  progress.finish();
  if (!failure.empty()) {
    std::cerr << kName << failure << "\n";
    return StopSignals::exitCode(kExitRunFailed);
  }

  const Recommendation rec = recommend(result);
  if (!req.quiet) {
    std::cout << heading(result, req) << "\n" << formatSweepTable(result) << "\n" << formatRecommendation(result, rec);
    const std::string simulated =
        selection.backend->kind() == "simulator" ? req.backend.simulatorProfile : req.predictProfile;
    std::cout << modelErrorLine(simulated, rec, result.points);
    std::cout.flush();
  }

  int exitCode = kExitOk;
  auto save = [&](const std::string& path, auto&& write) {
    if (path.empty()) return;
    try {
      write(path);
    } catch (const std::exception& e) {
      std::cerr << kName << e.what() << "\n";
      exitCode = kExitRunFailed;
    }
  };
  save(req.csvPath, [&](const std::string& p) { saveSweepCsv(result, p); });
  save(req.jsonPath, [&](const std::string& p) { saveSweepJson(result, p); });

  if (result.cancelled)
    std::cerr << kName << "stopped by " << StopSignals::describe() << ": " << result.points.size() << " of " << result.totalPoints
              << " points finished; the table and files cover them.\n";
  else if (StopSignals::requested())
    std::cerr << kName << StopSignals::describe() << " arrived after the sweep's last point; its results are complete.\n";
  std::size_t failed = 0;
  for (const auto& p : result.points) failed += p.ok() ? 0 : 1;
  if (failed > 0) {
    std::cerr << kName << failed << " of " << result.points.size() << " points failed:";
    for (const auto& p : result.points)
      if (!p.ok()) {
        std::cerr << " " << result.label(p) << ": " << p.outcome.message << ".";
        break;
      }
    std::cerr << "\n";
    if (failed == result.points.size()) return StopSignals::exitCode(kExitRunFailed);
  }
  return StopSignals::exitCode(exitCode);
}

const bool registered = registerCommand(
    {"sweep", "run a batch size x stream count grid and recommend a configuration", sweepMain,
     /*stopsOnInterrupt=*/true});

}  // namespace

}  // namespace pipescope::cli
