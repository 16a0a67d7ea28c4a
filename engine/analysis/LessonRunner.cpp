#include "analysis/LessonRunner.h"

namespace pipescope {

bool LessonOutcome::allHold() const {
  for (const auto& c : checks)
    if (!c.holds) return false;
  return ok();
}

std::optional<DeviceProfile> lessonProfile(const LessonRun& run, const DeviceProfile& current, std::string& error) {
  if (run.profile.empty()) return current;
  if (auto p = builtinProfile(run.profile)) return p;
  error = "lesson run '" + run.label + "' needs the built-in device profile '" + run.profile +
          "', which this build does not have";
  return std::nullopt;
}

LessonOutcome runLesson(const Lesson& lesson, const DeviceProfile& current, std::stop_token stop) {
  LessonOutcome out;
  for (const LessonRun& run : lesson.runs) {
    auto profile = lessonProfile(run, current, out.error);
    if (!profile) return out;
    SimulatedRun r = simulate(run.config, *profile, stop);
    if (!r.ok()) {
      out.error = "lesson run '" + run.label + "' did not finish: " +
                  (r.outcome.message.empty() ? std::string(toString(r.outcome.state)) : r.outcome.message);
      return out;
    }
    out.profiles.push_back(profile->name);
    out.metrics.push_back(r.metrics);
    out.runs.push_back(std::move(r));
  }
  for (const auto& e : lesson.expectations) out.checks.push_back({e.describe(lesson.runs), e.holds(out.metrics)});
  out.observedChoice = observedChoice(lesson.prediction, out.metrics);
  if (lesson.numbers) out.numbers = lesson.numbers(out.metrics);
  return out;
}

}  // namespace pipescope
