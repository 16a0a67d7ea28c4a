#pragma once
// Wires the wait-cause analysis and the limits into the main window: the wait text
// in the timeline's tooltips, the wait-cause overlay and its legend (View > Show
// wait causes), the ideal-finish and actual-finish markers on the timeline, and the
// limits section of the metrics panel. The analysis follows a live run on the
// metrics timer (MainWindow::kMetricsIntervalMs) and only when the trace grew.
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <memory>

#include "analysis/Limits.h"
#include "timeline/TimelineRenderer.h"
#include "trace/Trace.h"

class QAction;

namespace pipescope::ui {

class LimitsSection;
class MainWindow;
class TimelineView;
class WaitAnalysisModel;
class WaitCauseLegend;
class WaitCauseOverlay;

class AnalysisController : public QObject {
  Q_OBJECT
 public:
  explicit AnalysisController(MainWindow& window);
  ~AnalysisController() override;

  QAction* showWaitsAction() const { return showWaits_; }
  void setShowWaits(bool on);
  bool showWaits() const;

  const WaitAnalysisModel& model() const { return *model_; }
  WaitAnalysisModel& model() { return *model_; }
  LimitsSection& limitsSection() const { return *section_; }
  WaitCauseLegend& legend() const { return *legend_; }
  /// The timeline markers of a finished run: ideal finish and actual finish.
  static std::vector<TimelineMarker> boundMarkers(const Limits& limits);

 signals:
  /// The limits of the figures on screen (the limits section shows them; so does the
  /// presentation mode's bar), or none (a new run, another trace).
  void limitsShown(const pipescope::Limits& limits);
  void limitsCleared();

 private:
  void onTraceChanged(std::shared_ptr<Trace> trace);
  void onMetrics(const Metrics& m);
  void onModelUpdated();

  MainWindow& window_;
  WaitAnalysisModel* model_;
  std::unique_ptr<WaitCauseOverlay> overlay_;
  WaitCauseLegend* legend_;
  LimitsSection* section_;
  QAction* showWaits_;
  QTimer timer_;
  QPointer<TimelineView> timeline_;
  std::shared_ptr<Trace> trace_;
};

}  // namespace pipescope::ui
