#include "charts/GpuSeriesStyle.h"

#include <cmath>

namespace pipescope::ui {

namespace {

// Paul Tol's colour-blind-safe qualitative hues, ordered so that 2 and 4 GPUs get the
// most different ones: indigo, rose, teal, olive (solid), purple, cyan, orange, green
// (dashed).
constexpr QRgb kHues[kGpuStyles] = {0x332288, 0xCC6677, 0x44AA99, 0x999933, 0xAA4499, 0x88CCEE, 0xE69F00, 0x117733};

double luminance(const QColor& c) {
  auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

}  // namespace

double contrastRatio(const QColor& a, const QColor& b) {
  const double la = luminance(a), lb = luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor gpuSeriesColor(int gpu, const QColor& background, OpColors colors) {
  QColor c = QColor::fromRgb(kHues[((gpu % kGpuStyles) + kGpuStyles) % kGpuStyles]);
  // A thin line needs 3:1 against its background to read; a projector washes colours
  // out, so presentation mode asks for 4.5:1. Lightness moves away from the
  // background's, the hue stays.
  const double wanted = colors == OpColors::HighContrast ? 4.5 : 3.0;
  const bool darkBackground = luminance(background) < 0.18;
  for (int step = 0; step < 40 && contrastRatio(c, background) < wanted; ++step)
    c = darkBackground ? c.lighter(110) : c.darker(110);
  if (darkBackground && contrastRatio(c, background) < wanted) {
    // lighter() stalls on a dark saturated hue: mix towards white instead.
    for (int step = 1; step <= 10 && contrastRatio(c, background) < wanted; ++step)
      c = QColor::fromRgbF(c.redF() + (1 - c.redF()) * 0.15, c.greenF() + (1 - c.greenF()) * 0.15,
                           c.blueF() + (1 - c.blueF()) * 0.15);
  }
  return c;
}

QBrush gpuSeriesBrush(int gpu, const QColor& color) {
  if (gpuSeriesPenStyle(gpu) != Qt::SolidLine) return QBrush(color, Qt::BDiagPattern);
  QColor fill = color;
  fill.setAlphaF(0.55);
  return QBrush(fill);
}

Qt::PenStyle gpuSeriesPenStyle(int gpu) { return (gpu % kGpuStyles) < 4 ? Qt::SolidLine : Qt::DashLine; }

}  // namespace pipescope::ui
