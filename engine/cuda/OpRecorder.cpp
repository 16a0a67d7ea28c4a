#include "cuda/OpRecorder.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include "config/PipelineConfig.h"
#include "config/RecorderFlush.h"
#include "cuda/OpRecorderOrder.h"

namespace pipescope::cuda {

namespace {
// How often the CUPTI-to-host clock map is refreshed while running.
constexpr std::int64_t kCalibrateIntervalNs = 20'000'000;
// How often CUPTI's buffers are flushed while running (config/RecorderFlush.h). Its
// own periodic flush delivers only full buffers, and the external-correlation records
// of a run sat in a partly filled one until the run ended: the live view showed no GPU
// op, and every op stayed pending, for a whole run (hours, for an unbounded one).
constexpr std::int64_t kFlushIntervalNs = kRecorderFlushIntervalNs;
}  // namespace

OpRecorder::OpRecorder(Trace& trace, std::int64_t t0) : trace_(trace), t0_(t0) {
  // Sized for one GPU's most streams; more keys (several GPUs) grow them.
  ensureKey(limits::kMaxStreams - 1);
}

void OpRecorder::ensureKey(int key) {
  const auto n = std::size_t(key) + 1;
  if (lastEnd_.size() >= n) return;
  lastEnd_.resize(n, 0);
  held_.resize(n);
  emittedEnd_.resize(n, INT64_MIN);
  pendingByStream_.resize(n);
}

// ------------------------------------------------------------------ clocks
void OpRecorder::start(DeviceInfo& info) {
  int current = 0;
  PIPESCOPE_CUDA_CHECK(cudaGetDevice(&current));
  devices_.clear();
  devices_.resize(1);
  devices_[0].ordinal = current;
  startClocks(&info, 1);
  trace_.setDevice(info);
}

void OpRecorder::start(std::vector<DeviceInfo>& infos, const std::vector<int>& ordinals) {
  devices_.clear();
  devices_.resize(ordinals.size());
  for (std::size_t i = 0; i < ordinals.size(); ++i) devices_[i].ordinal = ordinals[i];
  startClocks(infos.data(), infos.size());
}

void OpRecorder::startClocks(DeviceInfo* infos, std::size_t count) {
  int current = 0;
  PIPESCOPE_CUDA_CHECK(cudaGetDevice(&current));
  for (DeviceClock& d : devices_) {
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(d.ordinal));
    d.refEvent = Event::create(true);
  }
  // The first flush comes 100 ms after the run's first op (noteFirstOp), not at its
  // first batch: a run shorter than that pays nothing for it (a flush right after start
  // took ~3 ms on an H100).
  lastFlushNs_ = steadyNowNs();
  std::string whyNot;
  cupti_ = tracer_.start(whyNot);
  for (std::size_t i = 0; i < count; ++i) {
    DeviceInfo& info = infos[i];
    if (cupti_) {
      info.timingSource = "CUPTI";
    } else {
      info.timingSource = "CUDA events";
      info.note += (info.note.empty() ? "" : "; ") + ("CUPTI unavailable (" + whyNot +
                  "): copy and kernel times come from CUDA events recorded around each op, so time spent "
                  "waiting for a busy engine is counted as execution");
    }
  }
  calibrate();
  for (DeviceClock& d : devices_) {
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(d.ordinal));
    alignEventClock(d);
  }
  PIPESCOPE_CUDA_CHECK(cudaSetDevice(current));
}

/// Ties one GPU's CUDA-event clock to the host time base. Without CUPTI, events are
/// the only GPU clock: the reference event, recorded on an idle device, completes a
/// few µs after the call. With CUPTI, event-timed ops (managed prefetches) sit next to
/// CUPTI-timed ones, so the event clock is aligned to CUPTI's instead: a tiny memset
/// between two events has its start/end in both clocks (median of 5). `d` is the
/// current device.
void OpRecorder::alignEventClock(DeviceClock& d) {
  const std::int64_t before = steadyNowNs();
  PIPESCOPE_CUDA_CHECK(cudaEventRecord(d.refEvent.get(), nullptr));
  PIPESCOPE_CUDA_CHECK(cudaEventSynchronize(d.refEvent.get()));
  d.refEventHostNs = before - t0_;
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
    const auto it = intervals_.find(intervalKey(id, std::uint32_t(d.ordinal)));
    if (it == intervals_.end()) continue;
    float msA = 0, msB = 0;
    PIPESCOPE_CUDA_CHECK(cudaEventElapsedTime(&msA, d.refEvent.get(), a.get()));
    PIPESCOPE_CUDA_CHECK(cudaEventElapsedTime(&msB, d.refEvent.get(), b.get()));
    // Event a completes just before the memset starts, b just after it ends.
    const std::int64_t fromStart = cuptiToHost(it->second.start) - std::int64_t(double(msA) * 1e6);
    const std::int64_t fromEnd = cuptiToHost(it->second.end) - std::int64_t(double(msB) * 1e6);
    offsets.push_back((fromStart + fromEnd) / 2);
    intervals_.erase(it);
  }
  if (offsets.empty()) return;  // CUPTI delivered nothing: keep the host-side estimate
  std::sort(offsets.begin(), offsets.end());
  d.refEventHostNs = offsets[offsets.size() / 2];
}

void OpRecorder::finish() {
  int current = 0;
  PIPESCOPE_CUDA_CHECK(cudaGetDevice(&current));
  for (const DeviceClock& d : devices_) {
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(d.ordinal));
    PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  PIPESCOPE_CUDA_CHECK(cudaSetDevice(current));
  if (cupti_) {
    calibrate();
    tracer_.stop();  // delivers every remaining record
    tracer_.collect(intervals_, 0);
  }
  finalize(/*all=*/true);
  if (cupti_) {
    for (std::deque<Pending>& q : pendingByStream_) {
      unresolved_ += std::int64_t(q.size());
      q.clear();
    }
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
/// The run's first op: its clock for the periodic flush starts here, not at the
/// recorder's start. Set-up between the two (NCCL's communicators over several GPUs,
/// ~2.5 s; cuBLAS's first call, 50-110 ms) would otherwise make the first finished batch
/// flush on the submit thread: 4.3 ms with nothing issued, 20 % of a 20 ms run over 2 H200s.
void OpRecorder::noteFirstOp() {
  if (firstOpIssued_) return;
  firstOpIssued_ = true;
  lastFlushNs_ = steadyNowNs();
}

OpRecorder::Pending OpRecorder::begin(GpuTarget where, bool forceEvents) {
  noteFirstOp();
  Pending p;
  p.id = ++nextId_;
  p.key = where.key;
  p.device = where.device;
  if (!cupti_ || forceEvents) {
    DeviceClock& d = devices_[std::size_t(where.device)];
    p.eventStart = takeEvent(d);
    p.eventEnd = takeEvent(d);
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(d.eventPool[std::size_t(p.eventStart)].get(), where.stream));
  }
  tracer_.push(p.id);
  return p;
}

void OpRecorder::end(Pending p, GpuTarget where, Op api, Op op, std::int64_t callStart, std::int64_t callEnd) {
  const bool events = p.eventStart >= 0;
  if (events)
    PIPESCOPE_CUDA_CHECK(
        cudaEventRecord(devices_[std::size_t(p.device)].eventPool[std::size_t(p.eventEnd)].get(), where.stream));
  api.kind = OpKind::ApiCall;
  api.correlation = std::uint32_t(p.id);
  api.submit = api.ready = api.start = callStart - t0_;
  api.end = callEnd - t0_;
  trace_.ops().append(api);
  op.correlation = std::uint32_t(p.id);
  op.submit = callStart - t0_;
  if (events) op.flags = std::uint8_t(op.flags | kOpEventTimed);
  p.op = op;
  enqueue(std::move(p));
}

void OpRecorder::enqueue(Pending&& p) {
  ensureKey(p.key);
  p.seq = ++nextSeq_;
  pendingByStream_[std::size_t(p.key)].push_back(std::move(p));
}

/// A group call's kernels are launched by the library, which may do so from a thread
/// of its own (NCCL on non-blocking communicators), out of reach of our correlation
/// ids; so CUPTI attributes them by their stream (watchGroupStreams). Events go on each
/// GPU's stream before the call when CUPTI is off (or a stream cannot be watched); the
/// events are created on each GPU in turn.
void OpRecorder::watchGroupStreams(const std::vector<GpuTarget>& where) {
  if (!cupti_ || groupEvents_) return;
  bool flushed = false;
  for (const GpuTarget& t : where) {
    if (ordered_.count(t.stream)) continue;
    if (!flushed) {
      // Whatever ran on these streams before (NCCL's warm-up) must not be counted.
      tracer_.flush(true);
      flushed = true;
    }
    std::string whyNot;
    // The stream's own GPU current, so CUPTI looks it up in the right context.
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices_[std::size_t(t.device)].ordinal));
    if (!tracer_.watchStream(t.stream, std::uint32_t(devices_[std::size_t(t.device)].ordinal), whyNot)) {
      groupEvents_ = true;
      return;
    }
    ordered_[t.stream];
  }
}

std::vector<OpRecorder::Pending> OpRecorder::beginGroup(const std::vector<GpuTarget>& where) {
  noteFirstOp();
  if (cupti_ && !groupEvents_) {
    bool unwatched = false;
    for (const GpuTarget& t : where) unwatched = unwatched || !ordered_.count(t.stream);
    if (unwatched) {
      // Not watched before the run: the forced flush that starts watching must find
      // no work in flight (it would lose their timestamps), so the GPUs finish first.
      for (const GpuTarget& t : where) {
        PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices_[std::size_t(t.device)].ordinal));
        PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
      }
      watchGroupStreams(where);
    }
  }
  const bool events = !cupti_ || groupEvents_;
  const std::uint64_t id = ++nextId_;
  std::vector<Pending> ps(where.size());
  for (std::size_t i = 0; i < where.size(); ++i) {
    Pending& p = ps[i];
    p.id = id;
    p.key = where[i].key;
    p.device = where[i].device;
    p.grouped = true;
    if (!events) p.ordered = where[i].stream;
    if (events) {
      DeviceClock& d = devices_[std::size_t(p.device)];
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(d.ordinal));
      p.eventStart = takeEvent(d);
      p.eventEnd = takeEvent(d);
      PIPESCOPE_CUDA_CHECK(cudaEventRecord(d.eventPool[std::size_t(p.eventStart)].get(), where[i].stream));
    }
  }
  tracer_.push(id);
  return ps;
}

void OpRecorder::endGroup(std::vector<Pending> ps, const std::vector<GpuTarget>& where, Op api,
                          const std::vector<Op>& ops, const Op& whole, std::int64_t callStart,
                          std::int64_t callEnd) {
  if (ps.empty()) return;
  const std::uint64_t id = ps.front().id;
  api.kind = OpKind::ApiCall;
  api.correlation = std::uint32_t(id);
  api.submit = api.ready = api.start = callStart - t0_;
  api.end = callEnd - t0_;
  trace_.ops().append(api);
  if (whole.lane != kNoLane) {
    Whole& w = wholes_[id];
    w.op = whole;
    w.op.correlation = std::uint32_t(id);
    w.op.submit = callStart - t0_;
    w.op.ready = w.op.start = w.op.end = INT64_MIN;
    w.remaining = int(ps.size());
  }
  for (std::size_t i = 0; i < ps.size(); ++i) {
    Pending& p = ps[i];
    if (p.eventStart >= 0) {
      DeviceClock& d = devices_[std::size_t(p.device)];
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(d.ordinal));
      PIPESCOPE_CUDA_CHECK(cudaEventRecord(d.eventPool[std::size_t(p.eventEnd)].get(), where[i].stream));
    }
    Op op = ops[i];
    op.correlation = std::uint32_t(id);
    op.submit = callStart - t0_;
    if (p.eventStart >= 0) op.flags = std::uint8_t(op.flags | kOpEventTimed);
    p.op = op;
    p.grouped = whole.lane != kNoLane;
    enqueue(std::move(p));
  }
}

int OpRecorder::takeEvent(DeviceClock& d) {
  if (d.freeEvents.empty()) {
    d.eventPool.push_back(Event::create(true));
    return int(d.eventPool.size() - 1);
  }
  const int e = d.freeEvents.back();
  d.freeEvents.pop_back();
  return e;
}

std::int64_t OpRecorder::eventTime(DeviceClock& d, int e) {
  float ms = 0;
  PIPESCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, d.refEvent.get(), d.eventPool[std::size_t(e)].get()));
  return d.refEventHostNs + std::int64_t(double(ms) * 1e6);
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
  // Ops of a stream are finalised in issue order: once one must wait (batch not done,
  // CUPTI record not delivered), every later op of its stream waits too, so that
  // stream leaves the merge. The streams' oldest ops are merged by issue order (a
  // min-heap on `seq`): ops are appended in the order they were issued, as one queue
  // scanned from the front would, at a cost of what is finalised, not what is pending.
  const auto later = [](const std::pair<std::uint64_t, std::size_t>& x, const std::pair<std::uint64_t, std::size_t>& y) {
    return x.first > y.first;
  };
  heads_.clear();
  for (std::size_t si = 0; si < pendingByStream_.size(); ++si)
    if (!pendingByStream_[si].empty()) heads_.emplace_back(pendingByStream_[si].front().seq, si);
  if (heads_.empty()) return;
  std::make_heap(heads_.begin(), heads_.end(), later);
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
    // The earliest-issued pending op has the oldest id (ids grow with issue order).
    tracer_.collect(intervals_, pendingByStream_[heads_.front().second].front().id);
  }
  auto done = [&](std::int32_t b) { return all || std::binary_search(doneBatches_.begin(), doneBatches_.end(), b); };
  while (!heads_.empty()) {
    std::pop_heap(heads_.begin(), heads_.end(), later);
    const std::size_t si = heads_.back().second;
    heads_.pop_back();
    std::deque<Pending>& queue = pendingByStream_[si];
    // The stream's oldest op leaves its queue (recorded, or dropped as unresolved); the
    // stream's next op joins the merge.
    auto advance = [&] {
      queue.pop_front();
      if (!queue.empty()) {
        heads_.emplace_back(queue.front().seq, si);
        std::push_heap(heads_.begin(), heads_.end(), later);
      }
    };
    Pending& p = queue.front();
    if (!done(p.op.batch)) continue;  // blocked: the stream's head stays queued
    Op& op = p.op;
    DeviceClock& dev = devices_[std::size_t(p.device)];
    if (p.eventStart >= 0 && !all) {
      // An op of a stream the host never waits for (a communication stream) may still
      // be running when its batch is done: it waits until its end event has completed.
      const cudaError_t q = cudaEventQuery(dev.eventPool[std::size_t(p.eventEnd)].get());
      if (q == cudaErrorNotReady) {
        (void)cudaGetLastError();
        continue;
      }
      if (q != cudaSuccess) throwCudaError("cudaEventQuery", q, std::string());
    }
    if (p.eventStart >= 0) {
      // The event clock is tied to the host clock by one sample at run start (a few
      // µs of error) while neighbours may be CUPTI-timed: never let an event-timed
      // op begin before its stream reached it.
      op.start = std::max({op.submit, eventTime(dev, p.eventStart), lastEnd_[si]});
      op.end = std::max(op.start, eventTime(dev, p.eventEnd));
      dev.freeEvents.push_back(p.eventStart);
      dev.freeEvents.push_back(p.eventEnd);
    } else if (p.ordered) {
      // The next kernel CUPTI saw on this stream is this op's.
      std::deque<GpuInterval>& q = ordered_[p.ordered];
      if (q.empty()) tracer_.collectStream(p.ordered, q);
      if (q.empty()) {
        if (all && !tracer_.active()) {
          ++unresolved_;  // CUPTI has stopped: this record will never come
          if (p.grouped) wholePart(p.id, nullptr);
          advance();
        }
        continue;
      }
      op.start = cuptiToHost(q.front().start);
      op.end = cuptiToHost(q.front().end);
      q.pop_front();
    } else {
      auto it = intervals_.find(intervalKey(p.id, std::uint32_t(dev.ordinal)));
      // A peer copy touches two GPUs: take its record whichever CUPTI filed it under.
      for (std::size_t d = 0; it == intervals_.end() && op.kind == OpKind::PeerCopy && d < devices_.size(); ++d)
        it = intervals_.find(intervalKey(p.id, std::uint32_t(devices_[d].ordinal)));
      if (it == intervals_.end()) {
        if (all && !tracer_.active()) {
          ++unresolved_;  // CUPTI has stopped: this record will never come
          if (p.grouped) wholePart(p.id, nullptr);
          advance();
        }
        continue;  // else: record not delivered yet
      }
      op.start = cuptiToHost(it->second.start);
      op.end = cuptiToHost(it->second.end);
      intervals_.erase(it);
    }
    // Ready: the stream reached the op once it was submitted and the stream's previous op ended.
    op.ready = std::min(std::max(op.submit, lastEnd_[si]), op.start);
    lastEnd_[si] = std::max(lastEnd_[si], op.end);
    emit(op, si, p.eventStart >= 0 && cupti_, p.grouped ? p.id : 0);
    advance();
  }
  if (all)
    for (std::size_t si = 0; si < held_.size(); ++si) emit(std::nullopt, si, false);
  // Batches older than every pending op are no longer needed for lookups. A stream's
  // ops are issued in batch order, so its oldest pending op is at its queue's front.
  std::int32_t oldest = INT32_MAX;
  for (const std::deque<Pending>& q : pendingByStream_)
    if (!q.empty()) oldest = std::min(oldest, q.front().op.batch);
  doneBatches_.erase(doneBatches_.begin(), std::lower_bound(doneBatches_.begin(), doneBatches_.end(), oldest));
}

/// Appends `op`. An event-timed op among CUPTI-timed ones is held until the next
/// CUPTI-timed op of its stream: the two clocks disagree by microseconds, and that
/// op's engine start bounds the held ones' ends (a run of several prefetches, as
/// prefetch-out of one batch then prefetch-in of the next, is fitted as a whole).
/// Every op starts no earlier than the stream's previous op ended: a stream never
/// shows two ops at once. `wholeId`: the group call the op belongs to (0: none).
void OpRecorder::emit(std::optional<Op> op, std::size_t si, bool hold, std::uint64_t wholeId) {
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
  if (wholeId) wholePart(wholeId, &*op);
}

/// One GPU's op of a group call is known (nullptr: it never will be); the whole
/// call is appended after the last: from the last GPU joining it (when the data can
/// move) to the last GPU's end, as the simulator draws it.
void OpRecorder::wholePart(std::uint64_t id, const Op* part) {
  auto it = wholes_.find(id);
  if (it == wholes_.end()) return;
  Whole& w = it->second;
  if (part) {
    w.op.start = std::max(w.op.start, part->start);
    w.op.ready = std::max(w.op.ready, part->ready);
    w.op.end = std::max(w.op.end, part->end);
  }
  if (--w.remaining > 0) return;
  if (w.op.start != INT64_MIN) {
    w.op.submit = std::min(w.op.submit, w.op.ready);
    trace_.ops().append(w.op);
  }
  wholes_.erase(it);
}

}  // namespace pipescope::cuda
