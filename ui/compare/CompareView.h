#pragma once
// Two runs on one time axis: the pinned run A above, run B beneath it, both starting
// at their own run start (time 0), zooming and panning together; the A | B |
// difference table beside them. The plots' left edges are kept aligned even when the
// two runs' lane names need header columns of different widths.
#include <QWidget>
#include <memory>

#include "analysis/Comparison.h"
#include "trace/Trace.h"

class QLabel;
class QPushButton;
class QComboBox;

namespace pipescope::ui {

class ComparisonTableWidget;
class TimelineView;

class CompareView : public QWidget {
  Q_OBJECT
 public:
  explicit CompareView(QWidget* parent = nullptr);

  void setRunA(std::shared_ptr<const Trace> trace, const QString& name);
  /// nullptr: no run B yet (the view says what to do).
  void setRunB(std::shared_ptr<const Trace> trace, const QString& name);
  /// Picks up ops a live run B published; keeps both runs in view until the user zooms.
  void refreshB();
  void setTable(const ComparisonTable& table);
  void clear();

  /// Shows [0, the later of the two finishes] on both (and resumes following B).
  void fitBoth();

  TimelineView& timelineA() const { return *a_; }
  TimelineView& timelineB() const { return *b_; }
  ComparisonTableWidget& table() const { return *table_; }
  QString nameA() const { return nameA_; }
  QString nameB() const { return nameB_; }
  bool hasA() const;
  bool hasB() const;
  /// Header width both plots start after (the wider of the two).
  int commonHeaderWidth() const;

 signals:
  void clearRequested();
  void exportRequested();

 private:
  void syncFrom(TimelineView* source, std::int64_t fromNs, std::int64_t toNs);
  void alignPlots();
  void updateCaptions();
  std::int64_t latestEnd() const;

  TimelineView* a_;
  TimelineView* b_;
  QLabel* captionA_;
  QLabel* captionB_;
  QLabel* hint_;
  QComboBox* grouping_;
  QPushButton* export_;
  QPushButton* clear_;
  ComparisonTableWidget* table_;
  QString nameA_, nameB_;
  bool syncing_ = false;
  bool userMoved_ = false;  // the user zoomed or panned: stop fitting to the runs
};

}  // namespace pipescope::ui
