// `pipescope-cli lessons`: the guided lessons, listed, or run on the GPU at hand
// (repeated, claims judged on the medians with their spread, the model's prediction
// beside each run) or on the simulator.
#include <atomic>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <thread>
#include <unistd.h>

#include "Commands.h"
#include "MachineNotice.h"
#include "Options.h"
#include "StopSignals.h"
#include "analysis/AnalysisJson.h"
#include "analysis/LessonReport.h"
#include "analysis/LessonRunner.h"
#include "sim/DeviceProfile.h"

namespace pipescope::cli {

namespace {

std::string help(const OptionSet& options) {
  return "usage: pipescope-cli lessons [--run N|ID] [--backend sim|cuda|auto] [--device N] [--reps K]\n"
         "                             [--profile NAME|FILE] [--predict NAME|FILE] [--slowdown X] [--json]\n"
         "\n"
         "Lists the guided lessons, or runs one: what to look for, the question to answer before the run,\n"
         "then the runs, the numbers and whether they show what the lesson claims. On a GPU each run is\n"
         "repeated (--reps) after a warm-up; a claim is judged on the medians, and one whose outcome flips\n"
         "within the run-to-run spread is reported as 'not shown clearly on this GPU'. Beside each measured\n"
         "run stands the simulator's prediction on the calibrated profile of the same GPU model. Runs on\n"
         "legacy GPUs (the C1060-like and C2050-like runs of the issue-order lesson) are always simulated.\n" +
         options.help() +
         "\nExit status: 0 listed or ran (even when the effect did not show on this device),\n"
         "1 a run failed (or --backend cuda without a usable GPU), 2 bad option or unknown lesson,\n"
         "128 + N stopped by signal N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).\n"
         "\nExamples:\n"
         "  pipescope-cli lessons\n"
         "  pipescope-cli lessons --run 4                        # on the GPU if there is one\n"
         "  pipescope-cli lessons --run 4 --backend cuda --reps 5\n"
         "  pipescope-cli lessons --run issue-order --backend sim --profile pcie4-desktop --json\n";
}

std::string indent(const std::string& text) { return "  " + wrap(text, 98, 2) + "\n"; }

void printLesson(const Lesson& l) {
  std::cout << "Lesson " << l.number << ": " << l.title << "\n\n" << indent(l.lookFor) << "\n";
  std::cout << "Before you run it: " << l.prediction.question << "\n";
  for (std::size_t i = 0; i < l.prediction.choices.size(); ++i)
    std::cout << "  " << char('a' + i) << ") " << l.prediction.choices[i].text << "\n";
  std::cout << "\nRuns:\n";
  for (const auto& r : l.runs)
    std::cout << "  " << r.label << (r.profile.empty() ? "" : " (simulated " + r.profile + ", a legacy what-if)")
              << "\n";
}

void printOutcome(const Lesson& lesson, const LessonOutcome& out) {
  std::cout << "\n" << wrap(formatLessonSetting(out), 100, 0) << "\n";
  std::cout << "\nRuns (makespan" << (out.reps > 1 ? ", median of the repetitions" : "") << "):\n"
            << formatLessonRuns(out);
  std::cout << "\nNumbers afterwards" << (out.reps > 1 ? " (the median repetition of each run)" : "") << ":\n"
            << out.numbers;
  const int answer = lesson.prediction.answer;
  std::cout << "\nAnswer: " << char('a' + answer) << ") " << lesson.prediction.choices[std::size_t(answer)].text;
  if (out.observedChoice >= 0 && out.observedChoice != answer)
    std::cout << "; on " << (out.measured() ? "this GPU" : "this profile") << " the numbers say "
              << char('a' + out.observedChoice) << ") " << lesson.prediction.choices[std::size_t(out.observedChoice)].text;
  else if (out.observedChoice < 0)
    std::cout << "; none of the answers fits these runs exactly";
  std::cout << "\n\nWhat the lesson claims:\n";
  for (const auto& c : out.checks) std::cout << "  [" << verdictMark(c.verdict) << "] " << formatClaim(c) << "\n";
  if (out.anyUnclear())
    std::cout << "\nSome effects are smaller than this GPU's run-to-run spread: more repetitions (--reps) or a\n"
                 "larger run may show them, or they are too small to teach on this card.\n";
  if (!out.allHold() && !out.anyUnclear())
    std::cout << "\nNot every claim holds on " << (out.measured() ? "this GPU" : "profile '" + out.device.profile + "'")
              << ": the effect depends on the device, which is a lesson too.\n";
}

int lessonsMain(const std::vector<std::string>& args) {
  std::string which, predict;
  BackendOptions backend;  // auto: the GPU when present
  int reps = 3;
  bool json = false;
  OptionSet options;
  options.group("Options");
  options.value("run", "N|ID", "run lesson N (1-11) or the lesson with this id", [&](const std::string& v) { which = v; });
  options.value("backend", "KIND",
                "where the lesson's 'this GPU' runs go: cuda, sim, or auto (default: the GPU when one is "
                "present, otherwise the simulator, and it says which)",
                [&](const std::string& v) {
                  backend.choice = parseChoice<BackendChoice>("backend", v, parseBackendChoice, "sim|cuda|auto");
                });
  options.value("device", "N", "CUDA device index, 0..63 (default 0)",
                [&](const std::string& v) { backend.cudaDevice = int(parseInteger("device", v, 0, 63)); });
  options.value("reps", "K",
                "repetitions of each run on a GPU, 1..50 (default 3); the simulator is deterministic and runs once",
                [&](const std::string& v) { reps = int(parseInteger("reps", v, 1, 50)); });
  options.value("profile", "NAME|FILE",
                "simulator device profile for the 'this GPU' runs on the simulator (default h200); legacy runs "
                "keep their own",
                [&](const std::string& v) { backend.simulatorProfile = v; });
  options.choices(builtinProfileNames());
  options.value("predict", "NAME|FILE",
                "profile whose predictions stand beside the measured runs (default: the built-in calibrated "
                "profile of this GPU's model, e.g. h100-calibrated on an H100)",
                [&](const std::string& v) { predict = v; });
  options.choices(builtinProfileNames());
  double slowdown = 0.0;
  options.value("slowdown", "X",
                "simulator only: wall-clock seconds per simulated second of the 'this GPU' runs, 0..10000 "
                "(default 0 = as fast as possible), to follow a lesson's progress as it runs",
                [&](const std::string& v) {
                  slowdown = parseNumber("slowdown", v);
                  if (!(slowdown >= 0 && slowdown <= 10000)) throw UsageError("--slowdown = " + v + ": allowed 0..10000");
                });
  bool forceProgress = false;
  options.flag("progress", "show which run is going on stderr even when it is not a terminal",
               [&] { forceProgress = true; });
  options.flag("json", "print the lesson list, or the lesson and its results, as JSON", [&] { json = true; });
  if (wantsHelp(args)) {
    std::cout << help(options);
    return kExitOk;
  }
  auto usage = [](const std::string& m) {
    std::cerr << "pipescope-cli lessons: " << m << "\nSee 'pipescope-cli lessons --help'.\n";
    return kExitUsage;
  };
  try {
    options.parse(args);
  } catch (const UsageError& e) {
    return usage(e.what());
  }
  std::string error;
  if (!loadDeviceProfile(backend.simulatorProfile, error))
    return usage("--profile = '" + backend.simulatorProfile + "': " + error);
  if (!predict.empty() && !loadDeviceProfile(predict, error)) return usage("--predict = '" + predict + "': " + error);

  if (which.empty()) {
    if (json) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& l : builtinLessons()) list.push_back(lessonToJson(l));
      std::cout << nlohmann::json{{"lessons", list}}.dump(2) << "\n";
      return kExitOk;
    }
    std::cout << "Lessons (run one with 'pipescope-cli lessons --run N'):\n";
    for (const auto& l : builtinLessons())
      std::cout << "  " << l.number << "  " << l.id << std::string(l.id.size() < 18 ? 18 - l.id.size() : 1, ' ')
                << l.title << "\n";
    return kExitOk;
  }
  const Lesson* lesson = findLesson(which);
  if (!lesson) return usage("--run = '" + which + "': no such lesson; 'pipescope-cli lessons' lists them (1-11)");

  LessonRunOptions run = lessonOnBackend(backend);
  if (slowdown > 0) {
    backend.simulatorSlowdown = slowdown;
    run.currentBackend = [backend] { return makeBackend(backend); };
  }
  run.reps = reps;
  run.predictProfile = predict;
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  if (terminal || forceProgress)
    run.progress = [terminal](const LessonProgress& p) {
      std::cerr << (terminal ? "\r\033[K" : "") << "run " << p.step + 1 << "/" << p.steps << ": " << p.label;
      if (p.reps > 1) std::cerr << " (repetition " << p.rep + 1 << "/" << p.reps << ")";
      std::cerr << (terminal ? "" : "\n");
      std::cerr.flush();
    };
  // The lesson runs on a worker thread; this one turns a stop signal into a stop
  // request, honoured between operations like Run > Stop.
  StopSignals stopSignals;
  std::stop_source stop;
  if (stopSignals.requested()) stop.request_stop();
  LessonOutcome out;
  std::atomic<bool> done{false};
  std::thread worker([&] {
    try {
      out = runLesson(*lesson, run, stop.get_token());
    } catch (const std::exception& e) {
      out.error = e.what();
    }
    done = true;
  });
  while (!done) {
    if (stopSignals.requested() && !stop.stop_requested()) stop.request_stop();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  worker.join();
  if (run.progress && terminal) std::cerr << "\r\033[K";
  if (json) {
    std::cout << lessonOutcomeToJson(*lesson, out).dump(2) << "\n";
  } else {
    printLesson(*lesson);
    if (out.ok()) printOutcome(*lesson, out);
  }
  // Measured on this GPU with the default prediction profile: say whose it is, and
  // how far this host is from a built-in one.
  if (out.ok() && out.measured() && predict.empty() && !json)
    printMachineNotice(predictionProfileFor(out.device), backend.cudaDevice, std::cerr);
  if (!out.ok()) {
    std::cerr << "pipescope-cli lessons: "
              << (stop.stop_requested() ? "stopped by " + StopSignals::describe() + ": " : std::string()) << out.error
              << "\n";
    return StopSignals::exitCode(kExitRunFailed);
  }
  if (StopSignals::requested())
    std::cerr << "pipescope-cli lessons: " << StopSignals::describe()
              << " arrived after the lesson's last run; its results are complete.\n";
  return StopSignals::exitCode(kExitOk);
}

const bool registered = registerCommand(
    {"lessons", "list the guided lessons or run one on the GPU or the simulator, with the claims checked", lessonsMain,
     /*stopsOnInterrupt=*/true});

}  // namespace

}  // namespace pipescope::cli
