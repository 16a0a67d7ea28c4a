#pragma once
// The measuring backend's periodic CUPTI flush (config/RecorderFlush.h), read from a
// run longer than its interval: at the first retired batch once the interval has
// passed since the run's first GPU op, the submit thread resolves the records of
// every op issued so far, 10-14 ms of nothing else at 100 ms into H200 runs of
// 12 000-20 000 ops (docs/fidelity.md). calibrate measures it so the simulator charges
// it (DeviceProfile::recorderFlushNsPerOp).
#include <cstdint>
#include <string>

#include "backend/Backend.h"
#include "config/PipelineConfig.h"
#include "trace/Trace.h"

namespace pipescope {

struct RecorderFlushReading {
  bool found = false;        ///< the run passed the interval and a batch retired after it
  double stallNs = 0;        ///< the longest gap on the submit lane just past the interval
  double baselineNs = 0;     ///< the median gap after a sync over the run: retiring a batch without a flush
  std::uint64_t ops = 0;     ///< GPU ops issued before the stall
  double atNs = 0;           ///< when the stall began, from the first GPU op's call
  double nsPerOp = 0;        ///< (stallNs - baselineNs) / ops, >= 0
};

/// Reads the first flush of `trace` (published): the submit lane's longest gap between
/// two ops among those starting within 5 ms of the interval after the first GPU op's
/// call, beyond the median gap after a cudaEventSynchronize (a batch retired without a
/// flush; a trace without syncs: the median gap).
RecorderFlushReading readRecorderFlush(const Trace& trace);

/// The fitting run: the host overhead fit's op-heavy configuration (8 streams, 64 KiB
/// batches copied in 8 chunks), long enough to pass the first flush on any host.
PipelineConfig recorderFlushConfig();

/// One run of recorderFlushConfig() on `measured`, read. Throws std::runtime_error
/// naming `what` when the run fails.
RecorderFlushReading fitRecorderFlush(Backend& measured, const std::string& what, double* makespanNs = nullptr);

}  // namespace pipescope
