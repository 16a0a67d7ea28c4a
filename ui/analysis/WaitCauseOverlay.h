#pragma once
// Draws every GPU op's wait on its stream row, right before the op, one hatched
// stretch per cause (WaitCauseStyle). Stream-order waits that lie under earlier ops
// of the same stream are not drawn (those ops are the picture of that wait).
//
// Cost per paint: for each visible stream row, a binary search to the first
// segment of the visible range; a segment narrower than a pixel stands for its pixel
// column and the rest of that column is skipped by another binary search, and
// neighbours of one cause merge into one rectangle: a zoomed-out row of a million
// segments costs O(pixels x log segments) (docs/performance.md, "Wait-cause overlay").
#include "timeline/TimelineOverlay.h"

namespace pipescope::ui {

class WaitAnalysisModel;

class WaitCauseOverlay : public TimelineOverlay {
 public:
  explicit WaitCauseOverlay(WaitAnalysisModel& model) : model_(model) {}
  void paintRow(QPainter& p, const LaneRow& row, const TimeAxis& axis, double barTop, double barHeight) const override;

 private:
  WaitAnalysisModel& model_;  // told the time range painted (a very large trace is analysed by window)
};

}  // namespace pipescope::ui
