#pragma once
// The timeline's key: one swatch per op kind, the two wait styles and the fold
// mark, flowing over as many lines as the width needs. paintLegend() draws the
// same key into any painter (the exported report image).
#include <QWidget>
#include <vector>

#include "trace/Op.h"

namespace pipescope::ui {

class TimelineLegend : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineLegend(QWidget* parent = nullptr);
  /// Only these kinds get a swatch (default: the pipeline's kinds; a trace that holds
  /// memsets, annotations, peer copies or collectives adds those: kindsFor).
  void setKinds(std::vector<OpKind> kinds);
  const std::vector<OpKind>& kinds() const { return kinds_; }

  /// Paints the key into `target`, wrapping lines; returns the height used.
  static int paintLegend(QPainter& p, const QRect& target, const std::vector<OpKind>& kinds, const QPalette& palette,
                         const QFont& font);
  static std::vector<OpKind> defaultKinds();
  /// The default kinds, then each optional kind whose bit is set in `kindMask` (bit k:
  /// the trace holds ops of OpKind k, as LaneIndex::LaneOps::kindMask).
  static std::vector<OpKind> kindsFor(std::uint32_t kindMask);

  QSize sizeHint() const override;
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  std::vector<OpKind> kinds_;
};

}  // namespace pipescope::ui
