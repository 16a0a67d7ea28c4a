#pragma once
// A/B comparison in the main window: Run > Pin as A (also a button in the metrics
// panel) pins the run on screen; the next run becomes B and is drawn beneath A in
// the "A/B comparison" dock on the same time axis, with the A | B | difference table
// following B live; File > Export image > A/B comparison writes one PNG (2x) or SVG.
#include <QObject>
#include <memory>

#include "compare/ComparisonImage.h"
#include "metrics/Metrics.h"
#include "trace/Trace.h"

class QAction;
class QPushButton;

namespace pipescope::ui {

class CompareView;
class MainWindow;

class CompareController : public QObject {
  Q_OBJECT
 public:
  explicit CompareController(MainWindow& window);

  CompareView& view() const { return *view_; }
  QAction* pinAction() const { return pin_; }
  QAction* clearAction() const { return clear_; }
  QAction* exportAction() const { return export_; }

  /// Pins the trace on screen as A; false (with the reason in `error`) when there is
  /// nothing finished to pin.
  bool pinCurrent(QString* error = nullptr);
  /// Pins a given trace as A (lessons, screenshot mode).
  void pin(std::shared_ptr<const Trace> trace, const QString& name);
  /// Makes a trace B explicitly (normally the next run becomes B by itself).
  void setB(std::shared_ptr<const Trace> trace, const QString& name);
  void clearPin();
  bool pinned() const { return a_ != nullptr; }
  std::shared_ptr<const Trace> traceA() const { return a_; }
  std::shared_ptr<const Trace> traceB() const { return b_; }

  /// .png (2x) or .svg by extension.
  bool exportComparisonImage(const QString& path, QString* error = nullptr);
  /// What the exported figure shows (empty without A and B).
  ComparisonContent comparisonContent() const;

 private:
  void onTraceChanged(std::shared_ptr<Trace> trace);
  void onMetrics(const Metrics& m);
  void onRunCompleted();
  void updateActions();
  void showDock();
  void exportDialog();

  MainWindow& window_;
  CompareView* view_;
  QAction* pin_;
  QAction* clear_;
  QAction* export_;
  QPushButton* pinButton_;
  std::shared_ptr<const Trace> a_, b_;
  QString nameA_, nameB_;
  Metrics metricsA_;
};

}  // namespace pipescope::ui
