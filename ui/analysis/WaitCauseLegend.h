#pragma once
// The key of the wait-cause overlay: one hatched swatch per cause, flowing over as
// many lines as the width needs; shown under the timeline's own legend while
// "Show wait causes" is on. paintLegend() draws the same key into any painter.
#include <QWidget>

namespace pipescope::ui {

class WaitCauseLegend : public QWidget {
  Q_OBJECT
 public:
  explicit WaitCauseLegend(QWidget* parent = nullptr);
  /// Paints the key into `target`; returns the height used.
  static int paintLegend(QPainter& p, const QRect& target, const QPalette& palette, const QFont& font);

  QSize sizeHint() const override;
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
};

}  // namespace pipescope::ui
