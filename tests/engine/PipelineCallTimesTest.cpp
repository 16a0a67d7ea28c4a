// Reading the host's CUDA calls from a run's trace (readPipelineCallTimes): call costs
// by kind and the gaps between consecutive calls of one batch, on a hand-built trace.
#include <gtest/gtest.h>

#include "HandBuiltTraceTestSupport.h"
#include "sim/PipelineCallTimes.h"
#include "trace/Trace.h"

namespace pipescope {
namespace {

struct TraceBuilder {
  Trace trace;
  std::uint16_t submit = trace.lane(LaneKind::HostSubmit, 0, "submit");
  std::uint16_t worker = trace.lane(LaneKind::HostWorker, 0, "worker 0");
  void add(OpKind kind, std::uint16_t lane, const char* name, std::int32_t batch, std::int64_t start,
           std::int64_t end) {
    simtest::appendOp(trace, kind, lane, name, batch, start, end);
  }
};

TEST(PipelineCallTimes, ReadsEachCallKindAndTheGapsWithinABatch) {
  TraceBuilder b;
  // Batch 0: launch, 50 ns, copy (the backend's name with its direction), a host wait,
  // the event record after it (that gap spans the wait: not bookkeeping).
  b.add(OpKind::ApiCall, b.submit, "cudaLaunchKernel", 0, 0, 100);
  b.add(OpKind::ApiCall, b.submit, "cudaMemcpyAsync H2D", 0, 150, 250);
  b.add(OpKind::HostSync, b.submit, "cudaEventSynchronize", 0, 250, 400);
  b.add(OpKind::ApiCall, b.submit, "cudaEventRecord", 0, 450, 470);
  // Batch 1: its first call 30 ns after batch 0's last (another batch: not counted),
  // then a copy 70 ns later (the simulator's name), and a worker's stage elsewhere.
  b.add(OpKind::ApiCall, b.submit, "cudaLaunchKernel", 1, 500, 640);
  b.add(OpKind::ApiCall, b.submit, "cudaMemcpyAsync", 1, 710, 830);
  b.add(OpKind::ApiCall, b.submit, "cudaLaunchKernel", 1, 900, 1020);
  b.add(OpKind::Preprocess, b.worker, "preprocess", 1, 0, 5000);
  b.trace.ops().publish();
  const PipelineCallTimes t = readPipelineCallTimes(b.trace);
  EXPECT_DOUBLE_EQ(t.kernelLaunchNs, 120);  // 100, 140, 120
  EXPECT_DOUBLE_EQ(t.memcpyAsyncNs, 110);   // 100, 120
  EXPECT_DOUBLE_EQ(t.eventRecordNs, 20);
  EXPECT_EQ(t.gaps, 3);                     // 50, 70, 70
  EXPECT_DOUBLE_EQ(t.gapNs, 70);
  EXPECT_TRUE(t.complete());
}

TEST(PipelineCallTimes, ReadsWhatRetiringABatchCosts) {
  TraceBuilder b;
  // Four batches: each ends with an event record; the host then waits for the batch
  // before it (100, 2000, 120, 140 ns) and starts the next batch 300, 500, 400 ns
  // after the wait; the last wait is followed by another wait (not a retire gap), of
  // 100 ns, right after which a launch starts (a gap of 0). Twenty more waits of 130
  // ns, each 200 ns before the next call.
  std::int64_t t = 0;
  const std::int64_t waits[] = {100, 2000, 120, 140};
  const std::int64_t after[] = {300, 500, 400};
  for (int i = 0; i < 4; ++i) {
    b.add(OpKind::ApiCall, b.submit, "cudaEventRecord", i, t, t + 10);
    b.add(OpKind::HostSync, b.submit, "cudaEventSynchronize", i, t + 10, t + 10 + waits[i]);
    t += 10 + waits[i] + (i < 3 ? after[i] : 0);
  }
  b.add(OpKind::HostSync, b.submit, "cudaEventSynchronize", 4, t, t + 100);
  t += 100;
  for (int i = 0; i < 20; ++i) {
    b.add(OpKind::ApiCall, b.submit, "cudaLaunchKernel", 5 + i, t, t + 10);
    b.add(OpKind::HostSync, b.submit, "cudaEventSynchronize", 5 + i, t + 10, t + 140);
    t += 140 + 200;
  }
  b.add(OpKind::ApiCall, b.submit, "cudaMemcpyAsync H2D", 30, t, t + 10);
  b.trace.ops().publish();
  const PipelineCallTimes r = readPipelineCallTimes(b.trace);
  // 25 waits: 100, 100, 120, 140, 2000 and 20 of 130: sorted, index 25 / 4 = 6 is 130.
  EXPECT_DOUBLE_EQ(r.syncReturnNs, 130);
  // Retire gaps: 300, 500, 400, 0, then 20 x 200 (the last to the copy): 24 gaps,
  // the slowest 5 % (one: 500) left out.
  EXPECT_EQ(r.retireGaps, 24);
  EXPECT_DOUBLE_EQ(r.retireGapNs, (300.0 + 400.0 + 0.0 + 20 * 200.0) / 23.0);
}

TEST(PipelineCallTimes, ReadsTheCublasCallsMedian) {
  TraceBuilder b;
  b.add(OpKind::ApiCall, b.submit, "cublasSgemm", 0, 0, 9000);
  b.add(OpKind::ApiCall, b.submit, "cublasSgemm", 0, 9500, 20500);
  b.add(OpKind::ApiCall, b.submit, "cublasSgemm", 0, 21000, 61000);
  b.add(OpKind::ApiCall, b.worker, "cublasSgemm", 0, 0, 1000);  // not the submit thread's
  b.trace.ops().publish();
  EXPECT_DOUBLE_EQ(readPipelineCallTimes(b.trace).gemmCallNs, 11000);  // 9000, 11000, 40000
  TraceBuilder none;
  none.add(OpKind::ApiCall, none.submit, "cudaLaunchKernel", 0, 0, 100);
  none.trace.ops().publish();
  EXPECT_EQ(readPipelineCallTimes(none.trace).gemmCallNs, 0);
}

TEST(PipelineCallTimes, ATraceWithoutSomeCallKindIsIncomplete) {
  TraceBuilder b;
  b.add(OpKind::ApiCall, b.submit, "cudaLaunchKernel", 0, 0, 100);
  b.add(OpKind::ApiCall, b.submit, "cudaLaunchKernel", 0, 200, 300);
  // A call on a worker's lane is not the submit thread's.
  b.add(OpKind::ApiCall, b.worker, "cudaEventRecord", 0, 0, 10);
  b.trace.ops().publish();
  const PipelineCallTimes t = readPipelineCallTimes(b.trace);
  EXPECT_DOUBLE_EQ(t.kernelLaunchNs, 100);
  EXPECT_DOUBLE_EQ(t.gapNs, 100);
  EXPECT_EQ(t.eventRecordNs, 0);
  EXPECT_FALSE(t.complete());
  Trace empty;
  empty.ops().publish();
  EXPECT_FALSE(readPipelineCallTimes(empty).complete());
}

}  // namespace
}  // namespace pipescope
