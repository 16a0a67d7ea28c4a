#pragma once
// Plays a recorded run back as if it were running: the same lanes, names and ops,
// each published once its recorded end time has passed, so the timeline builds up
// the way it did on the device. A run measured on a GPU is over in milliseconds;
// replayed with a slowdown (wall seconds per recorded second, as the simulator's
// slow motion) the class can watch the staircase form, and every op on screen is a
// real measured one.
#include <memory>

#include "backend/Backend.h"

namespace pipescope {

/// `recorded` must be complete (its run has ended). slowdown 0 = everything at once.
std::unique_ptr<Backend> makeReplayBackend(std::shared_ptr<const Trace> recorded, double slowdown);

}  // namespace pipescope
