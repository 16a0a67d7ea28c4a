#pragma once
// Runs a lesson and checks what it claims. The lesson's "this GPU" runs go to the
// backend the user chose (the real card, or the simulator with a profile); runs that
// name a device profile (the C1060-like and C2050-like GPUs of the issue-order
// lesson) exist only in the simulator and always run there, labelled as such.
// On a real GPU every run is repeated (interleaved, after a warm-up), claims are
// judged on the medians with the run-to-run spread (ClaimVerdict), and beside each
// measured run stands the simulator's prediction on the matching calibrated profile.
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "analysis/ClaimVerdict.h"
#include "analysis/Lesson.h"
#include "backend/Backend.h"
#include "sim/DeviceProfile.h"

namespace pipescope {

struct LessonProgress {
  int step = 0;   ///< 0-based run being done, over all repetitions
  int steps = 0;
  int run = 0;    ///< lesson run index
  int rep = 0;    ///< 0-based repetition
  int reps = 1;
  std::string label;
};

struct LessonRunOptions {
  /// Builds the backend of the "this GPU" runs; called once per lesson.
  std::function<BackendSelection()> currentBackend;
  /// Repetitions of each run on a measured backend. The simulator is deterministic:
  /// its runs are done once whatever this says.
  int reps = 3;
  /// Profile (built-in name or file) that predicts the measured runs; empty = the
  /// built-in calibrated profile of the measured GPU's model (PredictionProfile.h).
  std::string predictProfile;
  std::function<void(const LessonProgress&)> progress;
};

/// "This GPU" runs on the simulator with `profile`.
LessonRunOptions lessonOnSimulator(const DeviceProfile& profile);
/// "This GPU" runs on whatever makeBackend(backend) gives (auto: the GPU when present).
LessonRunOptions lessonOnBackend(const BackendOptions& backend);

/// One lesson run, with all its repetitions.
struct MeasuredRun {
  std::string label;
  std::string profile;    ///< simulator profile it ran on; empty when measured on a GPU
  std::string device;     ///< DeviceInfo::summary() of what ran it
  bool measured = false;  ///< ran on a real GPU (its repetitions differ)
  bool legacy = false;    ///< the lesson names its device: modelled in the simulator, never measured
  std::vector<std::shared_ptr<Trace>> traces;  ///< one per repetition
  std::vector<Metrics> reps;
  /// The repetition with the median makespan: what the numbers quote and the replay shows.
  std::size_t representative = 0;
  Spread makespan;
  std::optional<Metrics> predicted;  ///< the simulator on the prediction profile (measured runs)

  const Metrics& metrics() const { return reps[representative]; }
  std::shared_ptr<Trace> trace() const { return traces[representative]; }
  /// "measured on NVIDIA H100 80GB HBM3", "simulated: c1060-like (a legacy what-if,
  /// a device that exists only in the simulator)", "simulated: h200".
  std::string where() const;
};

struct LessonOutcome {
  std::vector<MeasuredRun> runs;
  std::vector<std::string> profiles;  ///< the simulator profile each run used (empty = measured)
  std::vector<Metrics> metrics;       ///< each run's representative repetition
  std::vector<ClaimVerdict> checks;
  int observedChoice = -1;  ///< on the medians
  std::string numbers;      ///< Lesson::numbers of the representative runs
  DeviceInfo device;        ///< what ran the "this GPU" runs
  std::string backendNote;  ///< e.g. auto fell back to the simulator, and why
  int reps = 1;             ///< repetitions of each "this GPU" run
  std::string predictionProfile;  ///< the profile of `MeasuredRun::predicted`, empty if none
  std::string predictionNote;     ///< why that profile, or why there is no prediction
  std::string error;              ///< a run failed, a profile is unknown, or it was stopped
  bool ok() const { return error.empty(); }
  bool measured() const { return device.backend == "cuda"; }
  bool allHold() const;
  bool anyUnclear() const;
};

/// The profile a lesson run uses: its own, or `current` when it names none.
std::optional<DeviceProfile> lessonProfile(const LessonRun& run, const DeviceProfile& current, std::string& error);

LessonOutcome runLesson(const Lesson& lesson, const LessonRunOptions& options, std::stop_token stop = {});
/// Everything on the simulator, "this GPU" runs with `current`.
LessonOutcome runLesson(const Lesson& lesson, const DeviceProfile& current, std::stop_token stop = {});

}  // namespace pipescope
