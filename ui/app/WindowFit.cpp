#include "app/WindowFit.h"

#include <algorithm>

namespace pipescope::ui {

QRect firstLaunchGeometry(const QRect& available, QSize designed) {
  const QSize size = designed.boundedTo(available.size());
  const QPoint offset((available.width() - size.width()) / 2, (available.height() - size.height()) / 2);
  return QRect(available.topLeft() + offset, size);
}

QRect clampOntoScreens(const QRect& frame, const QList<QRect>& screens) {
  if (screens.isEmpty()) return frame;
  QRect screen = screens.front();
  qint64 best = 0;
  for (const QRect& s : screens) {
    const QRect overlap = s & frame;
    const qint64 area = overlap.isEmpty() ? 0 : qint64(overlap.width()) * overlap.height();
    if (area > best) {
      best = area;
      screen = s;
    }
  }
  const QSize size = frame.size().boundedTo(screen.size());
  const int x = std::clamp(frame.x(), screen.left(), screen.left() + screen.width() - size.width());
  const int y = std::clamp(frame.y(), screen.top(), screen.top() + screen.height() - size.height());
  return QRect(QPoint(x, y), size);
}

bool isCompactSize(QSize windowSize) {
  return windowSize.width() < kCompactBelow.width() || windowSize.height() < kCompactBelow.height();
}

}  // namespace pipescope::ui
