#pragma once
// The metrics dock: the figures of metricsRows() for the whole run, the bottleneck
// sentence, and the statistics of the range selected on the timeline.
#include <QWidget>

#include "metrics/Metrics.h"

class QFormLayout;
class QGroupBox;
class QLabel;
class QVBoxLayout;

namespace pipescope::ui {

class MetricsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit MetricsPanel(QWidget* parent = nullptr);
  void setMetrics(const Metrics& metrics);
  void clear();
  /// Statistics of a selected time range [fromNs, toNs).
  void setSelection(const Metrics& metrics, std::int64_t fromNs, std::int64_t toNs);
  void clearSelection();

  /// The value shown for a row label ("Makespan"), for tests and the report.
  QString value(const QString& label) const;
  QString bottleneckSentence() const;
  /// Adds a section under the figures (the analysis adds its limits section).
  void addSection(QWidget* section);

 signals:
  void metricsShown(const pipescope::Metrics& metrics);  ///< setMetrics() was called
  void cleared();

 private:
  void fill(QFormLayout* form, const Metrics& m);

  QFormLayout* form_;
  QLabel* sentence_;
  QGroupBox* selectionBox_;
  QLabel* selectionRange_;
  QFormLayout* selectionForm_;
  QVBoxLayout* sections_;
};

}  // namespace pipescope::ui
