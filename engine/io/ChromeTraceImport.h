#pragma once
// Turns the events of a Chrome trace into a pipescope Trace.
//
// PyTorch profiler (Kineto) traces: GPU kernels, memcpys and memsets (cat "kernel",
// "gpu_memcpy", "gpu_memset") become ops on a lane per CUDA stream and on the
// engine lane that ran them (H2D / D2H copy engine, compute); CUDA runtime and
// driver calls become API-call ops on a host submit lane per thread; CPU ops, user
// annotations and anything else become annotation ops on host lanes (nested ranges
// are spread over extra lanes so none overlap). A GPU op's submit time is the start
// of the runtime call that launched it (linked by args.correlation or by flow
// events); its ready time is the later of submit and the end of the previous op on
// its stream. Times are rebased so the earliest event is at 0.
//
// Files written by pipescope's own Chrome export carry each op's fields and each
// lane's identity in args, and are read back without loss.
//
// User ranges (cat user_annotation / gpu_user_annotation / nvtx) carry kOpUserRange,
// GPU-side ones the stream they cover; host CPU ranges (cpu_op, python_function, user
// ranges) carry kOpHostWork so the host's time per iteration counts in the ideal
// bound; synchronisation calls become HostSync ops; a copy launched by a blocking
// cudaMemcpy carries kOpBlockingCall.
#include <memory>

#include "io/ChromeEvents.h"
#include "io/ImportOptions.h"
#include "io/TraceFileError.h"
#include "trace/Trace.h"

namespace pipescope {

/// Throws TraceFileError (naming the file and event) when the events are inconsistent.
/// Traces other than pipescope's own export get their iterations found
/// (io/IterationDetection.h): each iteration becomes a batch.
std::shared_ptr<Trace> importChromeEvents(ChromeEvents events, const ImportOptions& options = {});

}  // namespace pipescope
