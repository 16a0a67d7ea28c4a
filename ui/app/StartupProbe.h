#pragma once
// `pipescope --measure-startup`: notes when the main window's first frame has been
// painted, prints the time and the resident memory, and quits. bench/startup_bench.cpp
// and bench/ui_startup_bench.cpp launch the app many times and take the time from
// their own spawn to that printed instant (both on CLOCK_MONOTONIC, which every
// process shares).
#include <QObject>
#include <cstdint>

class QWidget;

namespace pipescope::ui {

class StartupProbe : public QObject {
  Q_OBJECT
 public:
  /// `mainStartNs`: CLOCK_MONOTONIC when main() began.
  StartupProbe(QWidget* window, std::int64_t mainStartNs);
  /// CLOCK_MONOTONIC now, in nanoseconds.
  static std::int64_t monotonicNs();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void report();

  QWidget* window_;
  std::int64_t mainStartNs_;
  std::int64_t firstPaintNs_ = 0;
};

}  // namespace pipescope::ui
