#pragma once
// The Advice dock: what would make the run on screen faster, ranked by the speed-up
// the simulator predicts with the current device profile (advise()). The candidates
// are simulated on a worker thread when a run ends or a trace is opened; the list
// arrives through a queued call and never blocks the UI. Each item's Apply button
// loads its configuration into the control panel.
#include <QWidget>
#include <memory>
#include <thread>

#include "analysis/Advice.h"
#include "trace/Trace.h"

class QLabel;
class QPushButton;
class QVBoxLayout;

namespace pipescope::ui {

class MainWindow;

class AdvicePanel : public QWidget {
  Q_OBJECT
 public:
  explicit AdvicePanel(MainWindow& window);
  ~AdvicePanel() override;  ///< cancels and joins a computation in progress

  /// Computes the advice for a finished trace (what a finished run or an opened file does).
  void adviseOn(std::shared_ptr<const Trace> trace);
  bool computing() const { return computing_; }
  const AdviceResult& result() const { return result_; }
  /// The Apply button of item i (tests).
  QPushButton* applyButton(int i) const;
  QString statusText() const;

 signals:
  void adviceReady();  ///< the list was replaced (possibly by a reason why there is none)

 private:
  void cancel();
  void show(AdviceResult result, std::uint64_t generation);

  MainWindow& window_;
  QLabel* status_;
  QVBoxLayout* items_;
  std::vector<QPushButton*> applyButtons_;
  AdviceResult result_;
  std::jthread worker_;
  std::uint64_t generation_ = 0;
  bool computing_ = false;
};

}  // namespace pipescope::ui
