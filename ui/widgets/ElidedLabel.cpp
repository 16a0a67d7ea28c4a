#include "widgets/ElidedLabel.h"

#include <QResizeEvent>
#include <cmath>

namespace pipescope::ui {

ElidedLabel::ElidedLabel(QWidget* parent) : QLabel(parent) {
  setTextFormat(Qt::PlainText);
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void ElidedLabel::setFullText(const QString& text, const QString& tip) {
  full_ = text;
  tip_ = tip;
  elide();
  updateGeometry();
}

QSize ElidedLabel::sizeHint() const {
  const QMargins m = contentsMargins();
  // Rounded up, with a pixel to spare: elidedText() must find the whole text fits.
  const int text = int(std::ceil(QFontMetricsF(font()).horizontalAdvance(full_))) + 2;
  return {text + m.left() + m.right(), QLabel::sizeHint().height()};
}

QSize ElidedLabel::minimumSizeHint() const {
  const QMargins m = contentsMargins();
  const int least = fontMetrics().horizontalAdvance(full_.left(8) + QChar(0x2026));
  return {std::min(sizeHint().width(), least + m.left() + m.right() + 2), QLabel::minimumSizeHint().height()};
}

void ElidedLabel::resizeEvent(QResizeEvent* event) {
  QLabel::resizeEvent(event);
  elide();
}

void ElidedLabel::elide() {
  const QString shown = fontMetrics().elidedText(full_, Qt::ElideRight, std::max(0, contentsRect().width()));
  setText(shown);
  const bool cut = shown != full_;
  setToolTip(cut ? (tip_.isEmpty() ? full_ : full_ + "\n" + tip_) : tip_);
}

}  // namespace pipescope::ui
