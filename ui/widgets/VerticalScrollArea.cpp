#include "widgets/VerticalScrollArea.h"

#include <QEvent>
#include <QScrollBar>
#include <algorithm>

namespace pipescope::ui {

VerticalScrollArea::VerticalScrollArea(QWidget* content, QWidget* parent) : QScrollArea(parent) {
  setWidgetResizable(true);
  setFrameShape(QFrame::NoFrame);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  // A container, not a stop of its own: Tab goes to the controls in it (and the area
  // scrolls to the focused one), Go to panel lands on the first control.
  setFocusPolicy(Qt::NoFocus);
  if (content) setContent(content);
}

void VerticalScrollArea::setContent(QWidget* content) {
  setWidget(content);
  // A new minimum of the content (a result shown, a longer word) must reach the dock.
  content->installEventFilter(this);
  updateGeometry();
}

int VerticalScrollArea::chromeWidth() const { return verticalScrollBar()->sizeHint().width() + 2 * frameWidth(); }

QSize VerticalScrollArea::sizeHint() const {
  const QWidget* content = widget();
  if (!content) return QScrollArea::sizeHint();
  const QSize hint = content->sizeHint();
  // As high as the content up to a screenful; the dock decides the real height.
  return {hint.width() + chromeWidth(), std::min(hint.height(), 900)};
}

QSize VerticalScrollArea::minimumSizeHint() const {
  const QWidget* content = widget();
  if (!content) return QScrollArea::minimumSizeHint();
  return {content->minimumSizeHint().width() + chromeWidth(), std::min(content->minimumSizeHint().height(), 80)};
}

bool VerticalScrollArea::eventFilter(QObject* watched, QEvent* event) {
  if (watched == widget() && event->type() == QEvent::LayoutRequest) updateGeometry();
  return QScrollArea::eventFilter(watched, event);
}

}  // namespace pipescope::ui
