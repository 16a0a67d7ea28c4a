#include "timeline/TimelineLegend.h"

#include <QPainter>
#include <QPixmap>

#include "OpPalette.h"
#include "timeline/TimelineRenderer.h"

namespace pipescope::ui {

namespace {

enum class Sample { Kind, EngineWait, StreamWait, Fold };

struct Entry {
  Sample sample;
  OpKind kind;
  QString text;
};

std::vector<Entry> entries(const std::vector<OpKind>& kinds) {
  std::vector<Entry> out;
  for (OpKind k : kinds) out.push_back({Sample::Kind, k, opKindLabel(k)});
  out.push_back({Sample::EngineWait, OpKind::Kernel, QStringLiteral("engine wait: ready, engine busy (ready → start)")});
  out.push_back({Sample::StreamWait, OpKind::Kernel,
                 QStringLiteral("stream wait: behind earlier work in the stream (submit → ready)")});
  out.push_back({Sample::Fold, OpKind::Kernel, QStringLiteral("many ops < 3 px folded (zoom in)")});
  return out;
}

constexpr int kSwatchW = 26, kGap = 18, kPad = 6;

// Lays entries out in lines; calls f(entry, swatchRect, textRect) for each.
template <typename F>
int flow(const QRect& target, const std::vector<Entry>& es, const QFont& font, F&& f) {
  const QFontMetrics fm(font);
  const int lineH = fm.height() + 8;
  int x = target.left() + kPad, y = target.top() + kPad;
  for (const Entry& e : es) {
    const int w = kSwatchW + 6 + fm.horizontalAdvance(e.text);
    if (x > target.left() + kPad && x + w > target.right() - kPad) {
      x = target.left() + kPad;
      y += lineH;
    }
    const QRect swatch(x, y + (lineH - 14) / 2, kSwatchW, 14);
    const QRect text(x + kSwatchW + 6, y, w - kSwatchW - 6, lineH);
    f(e, swatch, text);
    x += w + kGap;
  }
  return y + lineH + kPad - target.top();
}

}  // namespace

TimelineLegend::TimelineLegend(QWidget* parent) : QWidget(parent), kinds_(defaultKinds()) {
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

std::vector<OpKind> TimelineLegend::defaultKinds() {
  return {OpKind::Preprocess, OpKind::CopyH2D, OpKind::Kernel,  OpKind::CopyD2H,
          OpKind::Postprocess, OpKind::ApiCall, OpKind::HostSync};
}

std::vector<OpKind> TimelineLegend::kindsFor(std::uint32_t kindMask) {
  std::vector<OpKind> kinds = defaultKinds();
  for (OpKind k : {OpKind::Memset, OpKind::PeerCopy, OpKind::Collective, OpKind::Annotation})
    if (kindMask & (1u << unsigned(k))) kinds.push_back(k);
  return kinds;
}

void TimelineLegend::setKinds(std::vector<OpKind> kinds) {
  if (kinds == kinds_) return;
  kinds_ = std::move(kinds);
  updateGeometry();
  update();
}

int TimelineLegend::paintLegend(QPainter& p, const QRect& target, const std::vector<OpKind>& kinds,
                                const QPalette& palette, const QFont& font) {
  p.save();
  p.setFont(font);
  p.setRenderHint(QPainter::Antialiasing, false);
  const QColor text = palette.color(QPalette::WindowText);
  const int h = flow(target, entries(kinds), font, [&](const Entry& e, const QRect& sw, const QRect& tr) {
    switch (e.sample) {
      case Sample::Kind:
        p.fillRect(sw, opKindColor(e.kind));
        p.fillRect(QRect(sw.left(), sw.top(), 1, sw.height()), opKindColor(e.kind).darker(140));
        break;
      case Sample::EngineWait:
        TimelineRenderer::paintEngineWait(p, sw, waitColor(e.kind), opKindColor(e.kind).darker(115));
        break;
      case Sample::StreamWait:
        TimelineRenderer::paintStreamWait(p, sw.left() + 1, sw.right(), sw.center().y() + 0.5,
                                          opKindColor(e.kind).darker(110));
        break;
      case Sample::Fold: p.fillRect(sw.adjusted(0, 3, 0, -3), TimelineRenderer::foldColor(0)); break;
    }
    p.setPen(text);
    p.drawText(tr, Qt::AlignVCenter | Qt::AlignLeft, e.text);
  });
  p.restore();
  return h;
}

int TimelineLegend::heightForWidth(int width) const {
  return flow(QRect(0, 0, width, 1000), entries(kinds_), font(), [](const Entry&, const QRect&, const QRect&) {});
}

QSize TimelineLegend::sizeHint() const {
  const int w = 900;
  return {w, heightForWidth(w)};
}

void TimelineLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Window));
  paintLegend(p, rect(), kinds_, palette(), font());
}

}  // namespace pipescope::ui
