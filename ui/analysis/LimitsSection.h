#pragma once
// The metrics panel's "Limits and waits" section: the three classic limits with the
// measured time among them (LimitsBar), which engine is critical, and the run's
// wait-cause summary in sentences.
#include <QGroupBox>
#include <QStringList>

#include "analysis/Limits.h"

class QLabel;

namespace pipescope::ui {

class LimitsBar;

class LimitsSection : public QGroupBox {
  Q_OBJECT
 public:
  explicit LimitsSection(QWidget* parent = nullptr);
  void setLimits(const Limits& limits);
  void setWaitSentences(const QStringList& sentences);
  void clear();

  const LimitsBar& bar() const { return *bar_; }
  QString criticalText() const;
  QString positionText() const;
  QString waitsText() const;

 private:
  LimitsBar* bar_;
  QLabel* position_;
  QLabel* critical_;
  QLabel* waits_;
};

}  // namespace pipescope::ui
