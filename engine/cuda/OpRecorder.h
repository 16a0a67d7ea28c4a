#pragma once
// Recording the CUDA pipeline's GPU ops (docs/cuda-backend.md, "Timestamps"): each
// op's API call goes into the trace when it is made; the op itself once its batch is
// done and its engine start/end are known, from CUPTI activity records, or from CUDA
// events around the op where CUPTI cannot be used (or has no record, as for managed
// prefetches). Both GPU clocks are mapped onto the trace's host clock.
//
// One recorder serves every GPU of a run: CUPTI sees them all on one clock; each GPU
// has its own CUDA-event clock (events of one GPU are timed against a reference event
// of that GPU). Ops are kept in order per stream: a stream is named by a key unique
// across the run's GPUs.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda/CudaError.h"
#include "cuda/CudaResources.h"
#include "cuda/CuptiTracer.h"
#include "cuda/WorkerPool.h"
#include "trace/Trace.h"

namespace pipescope::cuda {

/// Where a GPU op runs: its stream, the stream's key (unique in the run; one GPU's
/// streams use their stream number) and the GPU (index into the recorder's devices).
/// That GPU must be the current device when the op is recorded (events are created there).
struct GpuTarget {
  cudaStream_t stream = nullptr;
  int key = 0;
  int device = 0;
};

class OpRecorder {
 public:
  /// `t0`: the run's start on the steady clock; trace times are ns from it.
  OpRecorder(Trace& trace, std::int64_t t0);

  /// One GPU, the current CUDA device: enables CUPTI when it can (else CUDA events;
  /// `info` says which and why, and goes to the trace) and ties the GPU clocks to the
  /// host clock.
  void start(DeviceInfo& info);
  /// Several GPUs: `ordinals[i]` is the CUDA device of recorder device i; every
  /// `infos[i]` gets the timing source (the caller puts them into the trace).
  void start(std::vector<DeviceInfo>& infos, const std::vector<int>& ordinals);
  /// After the last batch: waits for the devices, then records every op still pending.
  void finish();

  /// Issues one GPU op through `call` (returns cudaError_t; throws naming `what` when
  /// it fails). Its API call is recorded now on `api`'s lane; `op` once its batch is
  /// done and its GPU times are known. Both carry everything but times and correlation.
  template <typename Call>
  void record(const Op& api, const Op& op, GpuTarget where, bool forceEvents, const char* what, Call&& call) {
    Pending p = begin(where, forceEvents);
    const std::int64_t a = steadyNowNs();
    const cudaError_t err = call();
    const std::int64_t e = steadyNowNs();
    tracer_.pop();
    if (err != cudaSuccess) throwCudaError(what, err, std::string());
    end(std::move(p), where, api, op, a, e);
  }
  /// One GPU's op on `stream` (key: the op's stream number, the first device).
  template <typename Call>
  void record(const Op& api, const Op& op, cudaStream_t stream, bool forceEvents, const char* what, Call&& call) {
    record(api, op, GpuTarget{stream, op.stream, 0}, forceEvents, what, std::forward<Call>(call));
  }

  /// One call that runs an op on several GPUs at once (an NCCL group call launching a
  /// collective kernel on each): `ops[i]` on `where[i]`, all correlated to the one API
  /// call on `api`'s lane. `call` throws on failure. When `whole` has a lane, the call as
  /// a whole is appended there too once every GPU's op is known: from the last GPU's
  /// start (when the data can move) to the last end.
  template <typename Call>
  void recordGroup(const Op& api, const std::vector<Op>& ops, const std::vector<GpuTarget>& where, const Op& whole,
                   Call&& call) {
    std::vector<Pending> ps = beginGroup(where);
    const std::int64_t a = steadyNowNs();
    try {
      call();
    } catch (...) {
      tracer_.pop();
      throw;
    }
    const std::int64_t e = steadyNowNs();
    tracer_.pop();
    endGroup(std::move(ps), where, api, ops, whole, a, e);
  }

  /// Starts attributing CUPTI's kernel records on these streams (where group calls will
  /// run) by launch order. Call while the streams' GPUs are idle: a forced flush first
  /// drops what ran on them before (NCCL's warm-up), and a forced flush while work is in
  /// flight would lose those records' timestamps.
  void watchGroupStreams(const std::vector<GpuTarget>& where);

  /// Times an API call that issues no GPU op (an event record) and records it on `api`'s lane.
  template <typename Call>
  void recordCall(Op api, const char* what, Call&& call) {
    const std::int64_t a = steadyNowNs();
    const cudaError_t err = call();
    const std::int64_t e = steadyNowNs();
    if (err != cudaSuccess) throwCudaError(what, err, std::string());
    api.kind = OpKind::ApiCall;
    api.submit = api.ready = api.start = a - t0_;
    api.end = e - t0_;
    trace_.ops().append(api);
  }

  /// `batch`'s GPU work is done: its ops are appended as soon as their times are known.
  void batchDone(std::int32_t batch);

  /// GPU ops that never got a CUPTI record (reported in the run's note).
  std::int64_t unresolved() const { return unresolved_; }
  bool cupti() const { return cupti_; }

 private:
  /// A GPU op waiting for its timestamps.
  struct Pending {
    Op op;
    std::uint64_t id = 0;
    std::uint64_t seq = 0;  // issue order across streams (a group call's ops share one id)
    int key = 0, device = 0;
    int eventStart = -1, eventEnd = -1;  // event-pool indices (of the op's device) when event-timed
    bool grouped = false;                // one of a group call's ops: counts towards its whole
    const void* ordered = nullptr;       // CUPTI-timed by launch order on this watched stream (group calls)
  };
  /// One GPU's clock and event pool.
  struct DeviceClock {
    int ordinal = 0;
    Event refEvent;
    std::int64_t refEventHostNs = 0;
    std::vector<Event> eventPool;
    std::vector<int> freeEvents;
  };
  /// A group call's whole op, waiting for its GPUs' ops.
  struct Whole {
    Op op;
    int remaining = 0;
  };

  void startClocks(DeviceInfo* infos, std::size_t count);
  Pending begin(GpuTarget where, bool forceEvents);
  void end(Pending p, GpuTarget where, Op api, Op op, std::int64_t callStart, std::int64_t callEnd);
  std::vector<Pending> beginGroup(const std::vector<GpuTarget>& where);
  void endGroup(std::vector<Pending> ps, const std::vector<GpuTarget>& where, Op api, const std::vector<Op>& ops,
                const Op& whole, std::int64_t callStart, std::int64_t callEnd);
  void ensureKey(int key);

  void alignEventClock(DeviceClock& d);
  void calibrate();
  std::int64_t cuptiToHost(std::uint64_t c) const;
  int takeEvent(DeviceClock& d);
  std::int64_t eventTime(DeviceClock& d, int e);
  void finalize(bool all);
  void enqueue(Pending&& p);
  void noteFirstOp();
  void emit(std::optional<Op> op, std::size_t stream, bool hold, std::uint64_t wholeId = 0);
  void wholePart(std::uint64_t id, const Op* part);

  Trace& trace_;
  std::int64_t t0_;

  CuptiTracer tracer_;
  bool cupti_ = false;
  // CUPTI clock -> host clock: the line through the first and the latest (CUPTI, host) pair.
  std::optional<std::pair<std::uint64_t, std::int64_t>> calFirst_;
  std::pair<std::uint64_t, std::int64_t> calLast_{};
  double slope_ = 1.0;
  std::int64_t lastCalibrationNs_ = 0;
  std::int64_t lastFlushNs_ = 0;
  bool firstOpIssued_ = false;
  std::unordered_map<std::uint64_t, GpuInterval> intervals_;  // by intervalKey(id, ordinal)
  std::vector<DeviceClock> devices_;
  std::unordered_map<std::uint64_t, Whole> wholes_;
  // Streams of group calls, whose kernels CUPTI reports in launch order (CuptiTracer::watchStream).
  std::unordered_map<const void*, std::deque<GpuInterval>> ordered_;
  bool groupEvents_ = false;  // a stream could not be watched: group calls are event-timed

  // Per stream key: its ops waiting for their times, in issue order. Kept apart so
  // that retiring a batch looks at each stream's oldest op and what it finalises, not
  // at every op still in flight on other streams (with 16 streams that scan had cost
  // 4-33 µs of the submit thread's time per batch).
  std::vector<std::deque<Pending>> pendingByStream_;
  std::uint64_t nextSeq_ = 0;
  std::vector<std::pair<std::uint64_t, std::size_t>> heads_;  // finalize's heap, kept for its capacity
  std::vector<std::int32_t> doneBatches_;
  std::vector<std::int64_t> lastEnd_;  // per stream key: end of its latest recorded op
  // Per stream key: event-timed ops among CUPTI-timed ones, held until the stream's next
  // CUPTI-timed op bounds them (OpRecorderOrder.h), and the end of the last op appended.
  std::vector<std::vector<Op>> held_;
  std::vector<std::int64_t> emittedEnd_;
  std::uint64_t nextId_ = 0;
  std::int64_t unresolved_ = 0;
};

}  // namespace pipescope::cuda
