#pragma once
// Guided lessons as data: what to look for, a prediction to make before pressing Run,
// the runs (configurations on device profiles, all runnable on the simulator), the
// effect the lesson claims as machine-checkable expectations, and the text of the
// numbers afterwards, built from the runs' actual metrics.
#include <functional>
#include <string>
#include <vector>

#include "analysis/MetricCatalog.h"
#include "config/PipelineConfig.h"
#include "metrics/Metrics.h"

namespace pipescope {

struct LessonRun {
  std::string label;  ///< "1 stream", "4 streams", "C1060-like, breadth-first"
  PipelineConfig config;
  /// A built-in device profile name; empty = the current profile (the GPU at hand or
  /// the simulator profile the user picked).
  std::string profile;
};

enum class Relation : std::uint8_t {
  Less,     ///< value < reference·(1 − margin)
  Greater,  ///< value > reference·(1 + margin)
  About,    ///< |value − reference| <= margin·|reference|
};

/// "metric of run `run` <relation> (metric of run `against`, or `threshold`), by `margin`".
struct Expectation {
  MetricId metric = MetricId::Makespan;
  int run = 0;
  Relation relation = Relation::Less;
  int against = -1;      ///< another run's index; -1 compares with `threshold`
  double threshold = 0;  ///< in the metric's own unit (fractions as 0..1)
  double margin = 0;     ///< relative (0.3 = 30%)
  /// "makespan of '4 streams' is at least 30% lower than of '1 stream'".
  std::string describe(const std::vector<LessonRun>& runs) const;
  bool holds(const std::vector<Metrics>& results) const;
  /// The relation on two figures: the claim's metric on its run, and the reference
  /// (the other run's figure, or the threshold).
  bool holdsOn(double value, double reference) const;
};

struct PredictionChoice {
  std::string text;
  std::vector<Expectation> when;  ///< all hold ⇔ this choice describes what happened
};

struct Prediction {
  std::string question;
  std::vector<PredictionChoice> choices;
  int answer = 0;  ///< the choice the lesson's expectations imply
};

struct Lesson {
  int number = 0;  ///< 1-based, the order to take them in
  std::string id;  ///< "naive", "pinned", ... (stable, for scripts)
  std::string title;
  std::string lookFor;  ///< two or three sentences: what to look for on the timeline
  Prediction prediction;
  std::vector<LessonRun> runs;
  std::vector<Expectation> expectations;  ///< the effect the lesson claims
  /// The numbers afterwards, from the runs' metrics (same order as `runs`).
  std::function<std::string(const std::vector<Metrics>&)> numbers;
};

/// The teaching sequence (docs/analysis.md, "Lessons").
const std::vector<Lesson>& builtinLessons();
/// By number (1-based) or id; nullptr when unknown.
const Lesson* findLesson(std::string_view numberOrId);

/// Index of the first choice whose conditions all hold on `results`, -1 if none.
int observedChoice(const Prediction& prediction, const std::vector<Metrics>& results);

}  // namespace pipescope
