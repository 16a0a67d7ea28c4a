#pragma once
// Recording the CUDA pipeline's GPU ops (docs/cuda-backend.md, "Timestamps"): each
// op's API call goes into the trace when it is made; the op itself once its batch is
// done and its engine start/end are known, from CUPTI activity records, or from CUDA
// events around the op where CUPTI cannot be used (or has no record, as for managed
// prefetches). Both GPU clocks are mapped onto the trace's host clock.
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

class OpRecorder {
 public:
  /// `t0`: the run's start on the steady clock; trace times are ns from it.
  OpRecorder(Trace& trace, std::int64_t t0);

  /// Enables CUPTI when it can (else CUDA events; `info` says which and why, and goes
  /// to the trace) and ties the GPU clocks to the host clock.
  void start(DeviceInfo& info);
  /// After the last batch: waits for the device, then records every op still pending.
  void finish();

  /// Issues one GPU op through `call` (returns cudaError_t; throws naming `what` when
  /// it fails). Its API call is recorded now on `api`'s lane; `op` once its batch is
  /// done and its GPU times are known. Both carry everything but times and correlation.
  template <typename Call>
  void record(const Op& api, const Op& op, cudaStream_t stream, bool forceEvents, const char* what, Call&& call) {
    Pending p = begin(stream, forceEvents);
    const std::int64_t a = steadyNowNs();
    const cudaError_t err = call();
    const std::int64_t e = steadyNowNs();
    tracer_.pop();
    if (err != cudaSuccess) throwCudaError(what, err, std::string());
    end(std::move(p), stream, api, op, a, e);
  }

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

 private:
  /// A GPU op waiting for its timestamps.
  struct Pending {
    Op op;
    std::uint64_t id = 0;
    int eventStart = -1, eventEnd = -1;  // event-pool indices when event-timed
  };

  Pending begin(cudaStream_t stream, bool forceEvents);
  void end(Pending p, cudaStream_t stream, Op api, Op op, std::int64_t callStart, std::int64_t callEnd);

  void alignEventClock();
  void calibrate();
  std::int64_t cuptiToHost(std::uint64_t c) const;
  int takeEvent();
  std::int64_t eventTime(int e);
  void finalize(bool all);
  void emit(std::optional<Op> op, std::size_t stream, bool hold);

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
  std::unordered_map<std::uint64_t, GpuInterval> intervals_;
  Event refEvent_;
  std::int64_t refEventHostNs_ = 0;
  std::vector<Event> eventPool_;
  std::vector<int> freeEvents_;

  std::deque<Pending> pending_;
  std::vector<std::int32_t> doneBatches_;
  std::vector<std::int64_t> lastEnd_;  // per stream: end of its latest recorded op
  // Per stream: event-timed ops among CUPTI-timed ones, held until the stream's next
  // CUPTI-timed op bounds them (OpRecorderOrder.h), and the end of the last op appended.
  std::vector<std::vector<Op>> held_;
  std::vector<std::int64_t> emittedEnd_;
  std::vector<std::int64_t> pendingPerStream_;  // per stream: its ops in pending_
  std::uint64_t nextId_ = 0;
  std::int64_t unresolved_ = 0;
};

}  // namespace pipescope::cuda
