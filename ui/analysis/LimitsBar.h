#pragma once
// A small picture of the three classic limits on one time axis, with the measured
// makespan placed among them: full overlap (the ideal bound), one transfer direction
// overlapped, no overlap. Beyond no overlap the bar turns red.
#include <QWidget>

#include "analysis/Limits.h"

namespace pipescope::ui {

class LimitsBar : public QWidget {
  Q_OBJECT
 public:
  explicit LimitsBar(QWidget* parent = nullptr);
  void setLimits(const Limits& limits);
  void clear();
  const Limits& limits() const { return limits_; }
  bool hasLimits() const { return valid_; }

  /// Paints the bar into any painter (the comparison image uses it too).
  static void paintBar(QPainter& p, const QRect& r, const Limits& limits, const QPalette& palette, const QFont& font);
  static int preferredHeight(const QFont& font);

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  Limits limits_;
  bool valid_ = false;
};

}  // namespace pipescope::ui
