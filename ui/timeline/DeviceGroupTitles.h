#pragma once
// The title band of each device's group of lanes on a timeline of several GPUs or
// ranks: which GPU (or rank), its name, and how busy its compute engine was.
#include <QString>
#include <vector>

#include "timeline/LaneIndex.h"
#include "trace/Trace.h"

namespace pipescope::ui {

/// One title per device of `trace` ("GPU 1 · NVIDIA H200 · busy 87%", "Rank 2 of 4 ·
/// NVIDIA H200 · busy 61%"); empty for a trace of one device (no groups).
std::vector<QString> deviceGroupTitles(const Trace* trace, const std::vector<Lane>& lanes, const LaneIndex& index);

/// The fraction of [first op, last op] in which a compute engine lane of `device` ran
/// something (the union of its ops), 0 without such a lane.
double deviceBusyShare(int device, const std::vector<Lane>& lanes, const LaneIndex& index);

}  // namespace pipescope::ui
