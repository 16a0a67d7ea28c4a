#include "analysis/LessonRunner.h"

#include <algorithm>
#include <map>

#include "analysis/PredictionProfile.h"
#include "analysis/SimulatedRun.h"
#include "sim/SimulatorBackend.h"

namespace pipescope {

bool LessonOutcome::allHold() const {
  for (const auto& c : checks)
    if (!c.holds()) return false;
  return ok();
}

bool LessonOutcome::anyUnclear() const {
  return std::any_of(checks.begin(), checks.end(), [](const ClaimVerdict& c) { return c.verdict == Verdict::Unclear; });
}

std::string MeasuredRun::where() const {
  if (measured) return "measured on " + device;
  if (legacy) return "simulated: " + profile + " (exists only in the simulator)";
  return "simulated: " + profile;
}

std::optional<DeviceProfile> lessonProfile(const LessonRun& run, const DeviceProfile& current, std::string& error) {
  if (run.profile.empty()) return current;
  if (auto p = builtinProfile(run.profile)) return p;
  error = "lesson run '" + run.label + "' needs the built-in device profile '" + run.profile +
          "', which this build does not have";
  return std::nullopt;
}

LessonRunOptions lessonOnSimulator(const DeviceProfile& profile) {
  LessonRunOptions o;
  o.currentBackend = [profile] {
    BackendSelection s;
    s.backend = makeSimulatorBackend(profile);
    return s;
  };
  return o;
}

LessonRunOptions lessonOnBackend(const BackendOptions& backend) {
  LessonRunOptions o;
  o.currentBackend = [backend] {
    BackendOptions b = backend;
    b.simulatorSlowdown = 0;  // lessons measure flat out; the player slows the replay down
    return makeBackend(b);
  };
  return o;
}

namespace {

// One run of `config` on `backend` to completion, as EngineThread would do it but on
// this thread: the lesson runner is already off the UI thread.
SimulatedRun runOn(Backend& backend, const PipelineConfig& config, std::stop_token stop) {
  SimulatedRun r;
  r.trace = std::make_shared<Trace>();
  r.trace->setConfig(config);
  r.trace->setDevice(backend.describe());
  RunControl control;
  control.stop = stop;
  try {
    r.outcome = backend.run(config, *r.trace, control);
  } catch (const std::exception& e) {
    r.outcome = {RunState::Failed, std::string("internal error: ") + e.what()};
  }
  r.trace->ops().publish();
  if (r.outcome.state == RunState::Running || r.outcome.state == RunState::NotStarted)
    r.outcome.state = stop.stop_requested() ? RunState::Stopped : RunState::Finished;
  r.trace->setOutcome(r.outcome);
  r.metrics = computeMetrics(*r.trace);
  return r;
}

std::string failure(const LessonRun& run, const RunOutcome& o) {
  if (o.state == RunState::Stopped) return "the lesson was stopped during run '" + run.label + "'";
  return "lesson run '" + run.label + "' did not finish: " +
         (o.message.empty() ? std::string(toString(o.state)) : o.message);
}

// Keeps a measured backend's buffers between the lesson's runs (fewer allocations
// inside the measurements), and frees them when the lesson ends, however it ends.
struct KeepBuffers {
  Backend& b;
  explicit KeepBuffers(Backend& backend) : b(backend) { b.keepBuffersBetweenRuns(true); }
  ~KeepBuffers() { b.keepBuffersBetweenRuns(false); }
};

void finishRun(MeasuredRun& m) {
  std::vector<double> makespans;
  for (const Metrics& x : m.reps) makespans.push_back(x.makespanNs);
  m.makespan = spreadOf(makespans);
  // The repetition nearest the median (for an odd count, the median itself).
  std::size_t best = 0;
  for (std::size_t i = 1; i < m.reps.size(); ++i)
    if (std::abs(m.reps[i].makespanNs - m.makespan.median) < std::abs(m.reps[best].makespanNs - m.makespan.median))
      best = i;
  m.representative = best;
}

}  // namespace

LessonOutcome runLesson(const Lesson& lesson, const LessonRunOptions& options, std::stop_token stop) {
  LessonOutcome out;
  BackendSelection selection = options.currentBackend ? options.currentBackend() : BackendSelection{};
  if (!selection.backend) {
    out.error = selection.error.empty() ? "no backend to run the lesson on" : selection.error;
    return out;
  }
  Backend& current = *selection.backend;
  out.device = current.describe();
  out.backendNote = selection.note;
  const bool measuring = current.kind() != "simulator";
  out.reps = measuring ? std::max(options.reps, 1) : 1;

  // The legacy devices of the lesson, each a simulator backend of its own.
  std::map<std::string, std::unique_ptr<Backend>> legacy;
  for (const LessonRun& run : lesson.runs) {
    if (run.profile.empty() || legacy.count(run.profile)) continue;
    auto profile = builtinProfile(run.profile);
    if (!profile) {
      out.error = "lesson run '" + run.label + "' needs the built-in device profile '" + run.profile +
                  "', which this build does not have";
      return out;
    }
    legacy[run.profile] = makeSimulatorBackend(*profile);
  }

  std::vector<MeasuredRun> runs(lesson.runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const LessonRun& run = lesson.runs[i];
    MeasuredRun& m = runs[i];
    m.label = run.label;
    m.legacy = !run.profile.empty();
    m.measured = !m.legacy && measuring;
    m.profile = m.legacy ? run.profile : measuring ? std::string() : out.device.profile;
    m.device = m.legacy ? legacy[run.profile]->describe().summary() : out.device.summary();
  }

  std::optional<KeepBuffers> keep;
  if (measuring) {
    keep.emplace(current);
    // Warm-up: the first run on a GPU pays for the context, module loading and
    // first-touch allocations; no measurement should.
    const auto first = std::find_if(lesson.runs.begin(), lesson.runs.end(), [](const LessonRun& r) {
      return r.profile.empty();
    });
    if (first != lesson.runs.end()) {
      const SimulatedRun warm = runOn(current, first->config, stop);
      if (!warm.ok()) {
        out.error = failure(*first, warm.outcome) + " (warm-up run)";
        return out;
      }
    }
  }

  // Repetitions interleaved (all runs once, then again), so a drift of the machine
  // (clocks, another process) spreads over every run instead of biasing one.
  int steps = 0;
  for (const MeasuredRun& m : runs) steps += m.measured ? out.reps : 1;
  int step = 0;
  for (int rep = 0; rep < out.reps; ++rep) {
    for (std::size_t i = 0; i < runs.size(); ++i) {
      MeasuredRun& m = runs[i];
      if (rep > 0 && !m.measured) continue;  // the simulator gives the same run again
      const LessonRun& run = lesson.runs[i];
      if (options.progress) options.progress({step, steps, int(i), rep, m.measured ? out.reps : 1, run.label});
      ++step;
      Backend& backend = m.legacy ? *legacy[run.profile] : current;
      SimulatedRun r = runOn(backend, run.config, stop);
      if (!r.ok()) {
        out.error = failure(run, r.outcome);
        return out;
      }
      m.traces.push_back(r.trace);
      m.reps.push_back(r.metrics);
    }
  }
  keep.reset();
  for (MeasuredRun& m : runs) finishRun(m);

  // The model's prediction beside each measured run.
  if (measuring || !options.predictProfile.empty()) {
    std::string error;
    const PredictionProfileChoice choice = choosePredictionProfile(options.predictProfile, out.device, error);
    if (!error.empty()) {
      out.error = "--predict: " + error;
      return out;
    }
    out.predictionNote = choice.note;
    if (choice.profile) {
      out.predictionProfile = choice.profile->name;
      for (std::size_t i = 0; i < runs.size(); ++i) {
        if (runs[i].legacy) continue;
        const SimulatedRun p = simulate(lesson.runs[i].config, *choice.profile, stop);
        if (p.ok()) runs[i].predicted = p.metrics;
      }
    }
  }

  RepeatedMetrics perRun;
  for (const MeasuredRun& m : runs) {
    perRun.push_back(m.reps);
    out.profiles.push_back(m.profile);
    out.metrics.push_back(m.metrics());
  }
  for (const auto& e : lesson.expectations) out.checks.push_back(judgeClaim(e, lesson.runs, perRun));
  out.observedChoice = observedChoiceOnMedians(lesson.prediction, perRun);
  if (lesson.numbers) out.numbers = lesson.numbers(out.metrics);
  out.runs = std::move(runs);
  return out;
}

LessonOutcome runLesson(const Lesson& lesson, const DeviceProfile& current, std::stop_token stop) {
  return runLesson(lesson, lessonOnSimulator(current), stop);
}

}  // namespace pipescope
