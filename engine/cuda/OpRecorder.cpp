#include "cuda/OpRecorder.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include "config/PipelineConfig.h"
#include "cuda/OpRecorderOrder.h"

namespace pipescope::cuda {

namespace {
// How often the CUPTI-to-host clock map is refreshed while running.
constexpr std::int64_t kCalibrateIntervalNs = 20'000'000;
// How often CUPTI's buffers are flushed while running. Its own periodic flush
// delivers only full buffers, and the external-correlation records of a run sat in
// a partly filled one until the run ended: the live view showed no GPU op, and every
// op stayed pending, for a whole run (hours, for an unbounded one).
constexpr std::int64_t kFlushIntervalNs = 100'000'000;
}  // namespace

OpRecorder::OpRecorder(Trace& trace, std::int64_t t0)
    : trace_(trace),
      t0_(t0),
      // Sized for the most streams: ops of an earlier configuration may still be pending.
      lastEnd_(std::size_t(limits::kMaxStreams), 0),
      held_(std::size_t(limits::kMaxStreams)),
      emittedEnd_(std::size_t(limits::kMaxStreams), INT64_MIN),
      pendingPerStream_(std::size_t(limits::kMaxStreams), 0) {}

// ------------------------------------------------------------------ clocks
void OpRecorder::start(DeviceInfo& info) {
  refEvent_ = Event::create(true);
  // The first flush comes 100 ms into the run, not at its first batch: a run shorter
  // than that pays nothing for it (a flush right after start took ~3 ms on an H100).
  lastFlushNs_ = steadyNowNs();
  std::string whyNot;
  cupti_ = tracer_.start(whyNot);
  if (cupti_) {
    info.timingSource = "CUPTI";
  } else {
    info.timingSource = "CUDA events";
    info.note = "CUPTI unavailable (" + whyNot +
                "): copy and kernel times come from CUDA events recorded around each op, so time spent "
                "waiting for a busy engine is counted as execution";
  }
  trace_.setDevice(info);
  calibrate();
  alignEventClock();
}

/// Ties the CUDA-event clock to the host time base. Without CUPTI, events are the
/// only GPU clock: the reference event, recorded on an idle device, completes a few
/// µs after the call. With CUPTI, event-timed ops (managed prefetches) sit next to
/// CUPTI-timed ones, so the event clock is aligned to CUPTI's instead: a tiny memset
/// between two events has its start/end in both clocks (median of 5).
void OpRecorder::alignEventClock() {
  const std::int64_t before = steadyNowNs();
  PIPESCOPE_CUDA_CHECK(cudaEventRecord(refEvent_.get(), nullptr));
  PIPESCOPE_CUDA_CHECK(cudaEventSynchronize(refEvent_.get()));
  refEventHostNs_ = before - t0_;
  if (!cupti_) return;
  DeviceBuffer probe(4096, "clock alignment buffer");
  Event a = Event::create(true), b = Event::create(true);
  std::vector<std::int64_t> offsets;
  for (int i = 0; i < 5; ++i) {
    const std::uint64_t id = ++nextId_;
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(a.get(), nullptr));
    tracer_.push(id);
    const cudaError_t err = cudaMemsetAsync(probe.get(), i, probe.bytes(), nullptr);
    tracer_.pop();
    PIPESCOPE_CUDA_CHECK(err);
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(b.get(), nullptr));
    PIPESCOPE_CUDA_CHECK(cudaEventSynchronize(b.get()));
    tracer_.flush(true);
    tracer_.collect(intervals_, id);
    const auto it = intervals_.find(id);
    if (it == intervals_.end()) continue;
    float msA = 0, msB = 0;
    PIPESCOPE_CUDA_CHECK(cudaEventElapsedTime(&msA, refEvent_.get(), a.get()));
    PIPESCOPE_CUDA_CHECK(cudaEventElapsedTime(&msB, refEvent_.get(), b.get()));
    // Event a completes just before the memset starts, b just after it ends.
    const std::int64_t fromStart = cuptiToHost(it->second.start) - std::int64_t(double(msA) * 1e6);
    const std::int64_t fromEnd = cuptiToHost(it->second.end) - std::int64_t(double(msB) * 1e6);
    offsets.push_back((fromStart + fromEnd) / 2);
    intervals_.erase(it);
  }
  if (offsets.empty()) return;  // CUPTI delivered nothing: keep the host-side estimate
  std::sort(offsets.begin(), offsets.end());
  refEventHostNs_ = offsets[offsets.size() / 2];
}

void OpRecorder::finish() {
  PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  if (cupti_) {
    calibrate();
    tracer_.stop();  // delivers every remaining record
    tracer_.collect(intervals_, 0);
  }
  finalize(/*all=*/true);
  if (cupti_) {
    unresolved_ += std::int64_t(pending_.size());
    pending_.clear();
    std::fill(pendingPerStream_.begin(), pendingPerStream_.end(), 0);
  }
}

/// One (CUPTI clock, host clock) pair, the best of 5 samples.
void OpRecorder::calibrate() {
  if (!cupti_) return;
  std::int64_t bestSpread = INT64_MAX;
  std::pair<std::uint64_t, std::int64_t> best{};
  for (int i = 0; i < 5; ++i) {
    const std::int64_t a = steadyNowNs();
    const std::uint64_t c = CuptiTracer::timestamp();
    const std::int64_t b = steadyNowNs();
    if (b - a < bestSpread) {
      bestSpread = b - a;
      best = {c, (a + b) / 2 - t0_};
    }
  }
  if (!calFirst_) calFirst_ = best;
  calLast_ = best;
  const double dc = double(calLast_.first) - double(calFirst_->first);
  slope_ = dc > 1e6 ? (double(calLast_.second) - double(calFirst_->second)) / dc : 1.0;
}

std::int64_t OpRecorder::cuptiToHost(std::uint64_t c) const {
  return calFirst_->second + std::int64_t(std::llround((double(c) - double(calFirst_->first)) * slope_));
}

// ------------------------------------------------------------------ one op
OpRecorder::Pending OpRecorder::begin(cudaStream_t stream, bool forceEvents) {
  Pending p;
  p.id = ++nextId_;
  if (!cupti_ || forceEvents) {
    p.eventStart = takeEvent();
    p.eventEnd = takeEvent();
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(eventPool_[std::size_t(p.eventStart)].get(), stream));
  }
  tracer_.push(p.id);
  return p;
}

void OpRecorder::end(Pending p, cudaStream_t stream, Op api, Op op, std::int64_t callStart, std::int64_t callEnd) {
  const bool events = p.eventStart >= 0;
  if (events) PIPESCOPE_CUDA_CHECK(cudaEventRecord(eventPool_[std::size_t(p.eventEnd)].get(), stream));
  api.kind = OpKind::ApiCall;
  api.correlation = std::uint32_t(p.id);
  api.submit = api.ready = api.start = callStart - t0_;
  api.end = callEnd - t0_;
  trace_.ops().append(api);
  op.correlation = std::uint32_t(p.id);
  op.submit = callStart - t0_;
  if (events) op.flags = std::uint8_t(op.flags | kOpEventTimed);
  p.op = op;
  ++pendingPerStream_[std::size_t(p.op.stream)];
  pending_.push_back(std::move(p));
}

int OpRecorder::takeEvent() {
  if (freeEvents_.empty()) {
    eventPool_.push_back(Event::create(true));
    return int(eventPool_.size() - 1);
  }
  const int e = freeEvents_.back();
  freeEvents_.pop_back();
  return e;
}

std::int64_t OpRecorder::eventTime(int e) {
  float ms = 0;
  PIPESCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, refEvent_.get(), eventPool_[std::size_t(e)].get()));
  return refEventHostNs_ + std::int64_t(double(ms) * 1e6);
}

// ------------------------------------------------------------------ finalising
void OpRecorder::batchDone(std::int32_t batch) {
  // Kept sorted as it grows (batches finish in order, almost always): re-sorting on
  // every batch cost time in proportion to the run while CUPTI records were pending.
  if (doneBatches_.empty() || doneBatches_.back() <= batch) doneBatches_.push_back(batch);
  else doneBatches_.insert(std::lower_bound(doneBatches_.begin(), doneBatches_.end(), batch), batch);
  finalize(false);
}

/// Appends the GPU ops of done batches whose timestamps are known.
void OpRecorder::finalize(bool all) {
  if (pending_.empty()) return;
  if (cupti_ && tracer_.active()) {
    const std::int64_t now = steadyNowNs();
    if (now - lastCalibrationNs_ >= kCalibrateIntervalNs) {
      calibrate();
      lastCalibrationNs_ = now;
    }
    if (now - lastFlushNs_ >= kFlushIntervalNs) {
      tracer_.flush(false);  // completed records only: cheaper than a forced flush
      lastFlushNs_ = now;
    }
    tracer_.collect(intervals_, pending_.front().id);
  }
  auto done = [&](std::int32_t b) { return all || std::binary_search(doneBatches_.begin(), doneBatches_.end(), b); };
  // Ops of a stream are finalised in issue order: once one must wait (batch not done,
  // CUPTI record not delivered), every later op of its stream waits too. Once every
  // stream with pending ops waits, the rest of the queue cannot move: the scan stops
  // there, so a batch costs what it finalises, not what is still pending.
  std::vector<char> blocked(held_.size(), 0);
  const auto streamsWithOps = std::size_t(
      std::count_if(pendingPerStream_.begin(), pendingPerStream_.end(), [](std::int64_t n) { return n > 0; }));
  std::size_t blockedCount = 0;
  std::vector<Pending> kept;
  auto block = [&](std::size_t si, Pending&& p) {
    if (!blocked[si]) ++blockedCount;
    blocked[si] = 1;
    ++pendingPerStream_[si];
    kept.push_back(std::move(p));
  };
  while (!pending_.empty() && (all || blockedCount < streamsWithOps)) {
    Pending p = std::move(pending_.front());
    pending_.pop_front();
    const std::size_t si = std::size_t(p.op.stream);
    --pendingPerStream_[si];
    if (blocked[si] || !done(p.op.batch)) {
      block(si, std::move(p));
      continue;
    }
    Op& op = p.op;
    if (p.eventStart >= 0) {
      // The event clock is tied to the host clock by one sample at run start (a few
      // µs of error) while neighbours may be CUPTI-timed: never let an event-timed
      // op begin before its stream reached it.
      op.start = std::max({op.submit, eventTime(p.eventStart), lastEnd_[si]});
      op.end = std::max(op.start, eventTime(p.eventEnd));
      freeEvents_.push_back(p.eventStart);
      freeEvents_.push_back(p.eventEnd);
    } else {
      auto it = intervals_.find(p.id);
      if (it == intervals_.end()) {
        if (all && !tracer_.active()) {
          ++unresolved_;  // CUPTI has stopped: this record will never come
          continue;
        }
        block(si, std::move(p));  // record not delivered yet
        continue;
      }
      op.start = cuptiToHost(it->second.start);
      op.end = cuptiToHost(it->second.end);
      intervals_.erase(it);
    }
    // Ready: the stream reached the op once it was submitted and the stream's previous op ended.
    op.ready = std::min(std::max(op.submit, lastEnd_[si]), op.start);
    lastEnd_[si] = std::max(lastEnd_[si], op.end);
    emit(op, si, p.eventStart >= 0 && cupti_);
  }
  if (all)
    for (std::size_t si = 0; si < held_.size(); ++si) emit(std::nullopt, si, false);
  // Batches older than every pending op are no longer needed for lookups. A stream's
  // ops are issued in batch order and the scan stops only once every stream has
  // blocked, so each stream's oldest pending op is in `kept`.
  std::int32_t oldest = INT32_MAX;
  for (const Pending& p : kept) oldest = std::min(oldest, p.op.batch);
  for (auto it = kept.rbegin(); it != kept.rend(); ++it) pending_.push_front(std::move(*it));
  doneBatches_.erase(doneBatches_.begin(), std::lower_bound(doneBatches_.begin(), doneBatches_.end(), oldest));
}

/// Appends `op`. An event-timed op among CUPTI-timed ones is held until the next
/// CUPTI-timed op of its stream: the two clocks disagree by microseconds, and that
/// op's engine start bounds the held ones' ends (a run of several prefetches, as
/// prefetch-out of one batch then prefetch-in of the next, is fitted as a whole).
/// Every op starts no earlier than the stream's previous op ended: a stream never
/// shows two ops at once.
void OpRecorder::emit(std::optional<Op> op, std::size_t si, bool hold) {
  if (op && hold) {
    held_[si].push_back(*op);
    return;
  }
  std::vector<Op>& held = held_[si];
  if (!held.empty()) {
    fitBetween(held, emittedEnd_[si], op ? op->start : INT64_MAX);
    for (const Op& h : held) {
      trace_.ops().append(h);
      emittedEnd_[si] = std::max(emittedEnd_[si], h.end);
    }
    held.clear();
  }
  if (!op) return;
  startAfter(*op, emittedEnd_[si]);
  trace_.ops().append(*op);
  emittedEnd_[si] = std::max(emittedEnd_[si], op->end);
}

}  // namespace pipescope::cuda
