#pragma once
// How the charts tell the GPUs of a run apart: a hue each and, from the fifth GPU
// on, a dashed line or a hatched band, so eight GPUs stay apart for colour-blind
// readers and in print.
// The hues are kept off the op colours' blue, green and vermillion (the copy and
// compute lines drawn beside them) and darkened or lightened to stand out from the
// chart's background (more so in the high-contrast colours of presentation mode).
#include <QBrush>
#include <QColor>
#include <QPen>

#include "OpPalette.h"

namespace pipescope::ui {

/// Most GPUs with a style of their own; GPU k and k + kGpuStyles look alike.
inline constexpr int kGpuStyles = 8;

/// The colour of GPU `gpu`'s line on `background`.
QColor gpuSeriesColor(int gpu, const QColor& background, OpColors colors = opColors());
/// Qt::SolidLine for GPUs 0-3, Qt::DashLine for 4-7.
Qt::PenStyle gpuSeriesPenStyle(int gpu);
/// The fill of GPU `gpu`'s band in colour `color`: translucent for GPUs 0-3 (the
/// grid shows through), hatched for 4-7.
QBrush gpuSeriesBrush(int gpu, const QColor& color);
/// WCAG contrast ratio of two colours (1 .. 21).
double contrastRatio(const QColor& a, const QColor& b);

}  // namespace pipescope::ui
