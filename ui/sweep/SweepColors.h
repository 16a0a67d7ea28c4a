#pragma once
// Colours of the sweep figures: one per stream count (distinguishable, also in
// print) and the heatmap's sequential scale (lightness rises with the value, so
// the order reads in greyscale too).
#include <QColor>

namespace pipescope::ui {

/// The colour of the i-th stream count of a grid.
QColor streamSeriesColor(int i);
/// A viridis-like colour for t in [0, 1] (clamped): dark purple (low) to yellow (high).
QColor heatmapColor(double t);

}  // namespace pipescope::ui
