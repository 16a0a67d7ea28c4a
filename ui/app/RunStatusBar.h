#pragma once
// The status bar's three permanent fields: what runs (backend and device), the run
// state, and how many events were recorded.
#include <QStatusBar>


namespace pipescope::ui {

class ElidedLabel;

class RunStatusBar : public QStatusBar {
  Q_OBJECT
 public:
  explicit RunStatusBar(QWidget* parent = nullptr);
  void setBackend(const QString& text, const QString& tip = {});
  void setRunState(const QString& text);
  void setEventCount(std::uint64_t recorded, std::uint64_t dropped = 0);

  QString backendText() const;
  QString runStateText() const;
  QString eventsText() const;

 private:
  // Elided with a tooltip when the window is narrow: a long error message never
  // widens the window past the screen.
  ElidedLabel* backend_;
  ElidedLabel* state_;
  ElidedLabel* events_;
};

}  // namespace pipescope::ui
