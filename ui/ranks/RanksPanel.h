#pragma once
// The Ranks dock: for a trace of a distributed job's ranks (File › Open folder), the
// per-rank table analyze prints (compute, exposed communication, overlap, idle by
// cause, time waited for other ranks and made them wait, step period), the straggler
// line, and the what-ifs: the straggler as fast as the median rank, and DDP's
// gradients in K buckets. The dock is shown only while such a trace is on screen;
// selecting a rank's row unfolds and scrolls to its group of lanes on the timeline.
#include <QWidget>
#include <memory>

#include "ranks/BucketWhatIf.h"
#include "ranks/RankAnalysis.h"
#include "trace/Trace.h"

class QDockWidget;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace pipescope::ui {

class MainWindow;

class RanksPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RanksPanel(MainWindow& window);

  /// Analyses `trace` when it holds several ranks (true), else empties the panel.
  bool setTrace(const std::shared_ptr<const Trace>& trace);
  bool hasRanks() const { return !analysis_.ranks.empty(); }
  const RankAnalysis& analysis() const { return analysis_; }
  const BucketWhatIf& buckets() const { return buckets_; }

  QTableWidget& table() const { return *table_; }
  QTableWidget& bucketTable() const { return *bucketTable_; }
  QSpinBox& askedBuckets() const { return *asked_; }
  QString stragglerText() const;
  QString whatIfText() const;  ///< the straggler what-if and the buckets' assumptions

 signals:
  /// A rank's row was selected: its Trace device.
  void rankSelected(int device);

 private:
  void onTraceChanged(const std::shared_ptr<Trace>& trace);
  void fillTable();
  void fillBuckets();
  void onSelection();
  int wantedTableHeight() const;
  void fitDock(QDockWidget& dock);

  MainWindow& window_;
  RankAnalysis analysis_;
  BucketWhatIf buckets_;
  QWidget* leftColumn_;
  QLabel* headline_;   ///< over the table: the ranks and the straggler in one line
  QLabel* straggler_;  ///< the straggler sentence, over the what-ifs
  QTableWidget* table_;
  QLabel* stragglerWhatIf_;
  QTableWidget* bucketTable_;
  QSpinBox* asked_;
  QLabel* assumptions_;
};

}  // namespace pipescope::ui
