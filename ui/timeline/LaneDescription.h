#pragma once
// What a timeline row is, in words: the lane header's second line ("CUDA stream 13
// · kernels, H2D copies") and its tooltip (the same with op counts). Opened traces
// name their lanes after the file's threads; this says what each one means.
#include <QString>

#include "timeline/LaneIndex.h"
#include "timeline/LaneLayout.h"

namespace pipescope::ui {

/// One short line (no op counts: cheap enough to paint every frame).
QString laneSubtitle(const LaneRow& row, const LaneIndex& index);
/// A few lines for the header tooltip, with op counts (walks the lane's ops).
QString laneTooltip(const LaneRow& row, const LaneIndex& index, int foldableLanes);

}  // namespace pipescope::ui
