#pragma once
// Runs a lesson's runs on the simulator and checks what the lesson claims.
#include <stop_token>
#include <string>
#include <vector>

#include "analysis/Lesson.h"
#include "analysis/SimulatedRun.h"
#include "sim/DeviceProfile.h"

namespace pipescope {

struct ExpectationCheck {
  std::string claim;  ///< Expectation::describe()
  bool holds = false;
};

struct LessonOutcome {
  std::vector<SimulatedRun> runs;
  std::vector<std::string> profiles;  ///< the profile each run used
  std::vector<Metrics> metrics;
  std::vector<ExpectationCheck> checks;
  int observedChoice = -1;
  std::string numbers;  ///< Lesson::numbers of the metrics
  std::string error;    ///< a run failed or a profile is unknown
  bool ok() const { return error.empty(); }
  bool allHold() const;
};

/// The profile a lesson run uses: its own, or `current` when it names none.
std::optional<DeviceProfile> lessonProfile(const LessonRun& run, const DeviceProfile& current, std::string& error);

LessonOutcome runLesson(const Lesson& lesson, const DeviceProfile& current, std::stop_token stop = {});

}  // namespace pipescope
