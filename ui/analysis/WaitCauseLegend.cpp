#include "analysis/WaitCauseLegend.h"

#include <QPainter>

#include "analysis/WaitCauseStyle.h"

namespace pipescope::ui {

namespace {

constexpr int kSwatchW = 26, kGap = 18, kPad = 6;

// Lays the title and one entry per cause out in lines; f(cause or -1, swatch, text).
template <typename F>
int flow(const QRect& target, const QFont& font, F&& f) {
  const QFontMetrics fm(font);
  const int lineH = fm.height() + 8;
  int x = target.left() + kPad, y = target.top() + kPad;
  const QString title = QObject::tr("Wait causes:");
  const int titleW = fm.horizontalAdvance(title);
  f(-1, QRect(), QRect(x, y, titleW, lineH), title);
  x += titleW + 10;
  for (int c = 0; c < kWaitCauseCount; ++c) {
    const QString text = waitCauseLabel(WaitCause(c));
    const int w = kSwatchW + 6 + fm.horizontalAdvance(text);
    if (x + w > target.right() - kPad) {
      x = target.left() + kPad + titleW + 10;
      y += lineH;
    }
    f(c, QRect(x, y + (lineH - 14) / 2, kSwatchW, 14), QRect(x + kSwatchW + 6, y, w - kSwatchW - 6, lineH), text);
    x += w + kGap;
  }
  return y + lineH + kPad - target.top();
}

}  // namespace

WaitCauseLegend::WaitCauseLegend(QWidget* parent) : QWidget(parent) {
  setObjectName("waitCauseLegend");
  QString tip;
  for (int c = 0; c < kWaitCauseCount; ++c)
    tip += QStringLiteral("<b>%1</b>: %2<br>").arg(waitCauseLabel(WaitCause(c)), waitCauseExplanation(WaitCause(c)));
  setToolTip(tip);
}

int WaitCauseLegend::paintLegend(QPainter& p, const QRect& target, const QPalette& palette, const QFont& font) {
  p.save();
  p.setFont(font);
  p.setRenderHint(QPainter::Antialiasing, false);
  const QColor text = palette.color(QPalette::WindowText);
  const int h = flow(target, font, [&](int c, const QRect& sw, const QRect& tr, const QString& label) {
    if (c >= 0) {
      paintWaitCause(p, sw, WaitCause(c));
      p.setPen(waitCauseColor(WaitCause(c)).darker(175));
      p.drawRect(sw.adjusted(0, 0, -1, -1));
    }
    p.setPen(text);
    p.drawText(tr, Qt::AlignVCenter | Qt::AlignLeft, label);
  });
  p.restore();
  return h;
}

int WaitCauseLegend::heightForWidth(int width) const {
  return flow(QRect(0, 0, width, 1000), font(), [](int, const QRect&, const QRect&, const QString&) {});
}

QSize WaitCauseLegend::sizeHint() const { return {900, heightForWidth(900)}; }

void WaitCauseLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Window));
  paintLegend(p, rect(), palette(), font());
}

}  // namespace pipescope::ui
