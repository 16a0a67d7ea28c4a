#include "sim/GpuModel.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "sim/StageCosts.h"

namespace pipescope {

GpuModel::GpuModel(const DeviceProfile& profile)
    : profile_(profile), singleQueue_(profile.hardwareQueues <= 1) {}

namespace {

/// Kernels follow each other in a stream without the front end's dependency latency,
/// whichever of the two kernel slots they run on.
int engineFamily(int slot) { return slot == GpuModel::kLinkSlot ? GpuModel::kComputeSlot : slot; }

}  // namespace

int GpuModel::engineSlot(EngineId e) const {
  if (e == EngineId::Link) return singleQueue_ ? kComputeSlot : kLinkSlot;
  if (e == EngineId::Compute) return kComputeSlot;
  if (profile_.copyEngines <= 1) return 0;
  return e == EngineId::H2D ? 0 : 1;
}

void GpuModel::scheduleDone(int slot, double t) {
  Engine& e = engines_[slot];
  e.doneAt = t;
  e.doneSeq = seq_++;
}

std::uint64_t GpuModel::submit(const GpuCommand& cmd, double t) {
  // Submit events are consumed in id order (step), which is their time order only
  // if the host's clock never runs backwards.
  if (t < lastSubmitT_) throw std::logic_error("simulator: command submitted before the previous one");
  lastSubmitT_ = t;
  const std::uint64_t id = nextId();
  GpuOpState& s = ops_.append();
  s = GpuOpState{};
  s.cmd = cmd;
  s.engineSlot = engineSlot(cmd.engine);
  s.submit = t;
  s.remainingSoloNs = cmd.soloNs;
  s.submitSeq = seq_++;
  s.nextInStream = s.nextInEngineQueue = kNone;
  return id;
}

void GpuModel::runUntilDone(std::uint64_t id) {
  while (!op(id).done())
    if (!step()) throw std::logic_error("simulator: op " + std::to_string(id) + " can never complete");
}

void GpuModel::runAll() {
  while (step()) {
  }
  for (std::uint64_t id = base_; id < nextId(); ++id)
    if (!op(id).done()) throw std::logic_error("simulator: op " + std::to_string(id) + " never completed");
}

void GpuModel::forgetBefore(std::uint64_t id) {
  while (base_ < id && !ops_.empty() && ops_.front().done()) {
    ops_.pop_front();
    ++base_;
  }
  // Kernel groups are only referenced by ops still alive; drop the settled ones.
  while (groups_.size() > 1 && groups_.front().unfinished == 0 && groups_.front().finished.empty() &&
         groupBase_ != openGroup_) {
    groups_.pop_front();
    ++groupBase_;
  }
}

bool GpuModel::step() {
  // The earliest of: the next submission, each busy engine's finish; ties go to the
  // event created first.
  constexpr int kSubmitEvent = -1, kNoEvent = -2;
  int next = kNoEvent;
  double t = 0;
  std::uint64_t seq = 0;
  if (nextSubmit_ < nextId()) {
    const GpuOpState& s = op(nextSubmit_);
    next = kSubmitEvent;
    t = s.submit;
    seq = s.submitSeq;
  }
  for (int slot = 0; slot < kSlots; ++slot) {
    const Engine& e = engines_[slot];
    if (!e.busy) continue;
    if (next == kNoEvent || e.doneAt < t || (e.doneAt == t && e.doneSeq < seq)) {
      next = slot;
      t = e.doneAt;
      seq = e.doneSeq;
    }
  }
  if (next == kNoEvent) return false;
  if (next == kSubmitEvent)
    onSubmit(nextSubmit_++, t);
  else
    onEngineDone(next, t);
  return true;
}

void GpuModel::onSubmit(std::uint64_t id, double t) {
  GpuOpState& s = mut(id);
  if (profile_.delayedKernelSignal) {
    // Fermi: kernels launched back to back, with no other command between them,
    // report completion together when the last one ends.
    if (s.cmd.kind == OpKind::Kernel) {
      if (openGroup_ < 0) {
        groups_.emplace_back();
        openGroup_ = groupBase_ + int(groups_.size()) - 1;
      }
      s.kernelGroup = openGroup_;
      ++groups_[std::size_t(openGroup_ - groupBase_)].unfinished;
    } else {
      openGroup_ = -1;
    }
  }
  if (singleQueue_) {
    OpQueue& fifo = engines_[s.engineSlot].fifo;
    if (fifo.empty())
      fifo.head = id;
    else
      mut(fifo.tail).nextInEngineQueue = id;
    fifo.tail = id;
  }
  const auto stream = std::size_t(s.cmd.stream);
  if (streams_.size() <= stream) streams_.resize(stream + 1);
  OpQueue& queue = streams_[stream];
  const bool wasEmpty = queue.empty();
  // Back-to-back kernels of one stream follow each other on the compute engine
  // even when their completion is only signalled later (delayed kernel signal).
  const bool afterEndedKernel = !wasEmpty && s.cmd.kind == OpKind::Kernel &&
                                op(queue.tail).cmd.kind == OpKind::Kernel && op(queue.tail).end >= 0;
  if (wasEmpty)
    queue.head = id;
  else
    mut(queue.tail).nextInStream = id;
  queue.tail = id;
  if (wasEmpty || afterEndedKernel) makeReady(id, t);
}

void GpuModel::makeReady(std::uint64_t id, double t) {
  GpuOpState& s = mut(id);
  s.ready = t;
  if (!singleQueue_) engines_[s.engineSlot].ready.push_back(id);
  dispatch(s.engineSlot, t);
}

void GpuModel::dispatch(int slot, double t) {
  Engine& e = engines_[slot];
  if (slot == kLinkSlot) {
    // Link-bound kernels do not wait for each other: every ready one joins those running.
    while (!e.ready.empty()) {
      const std::uint64_t id = e.ready.front();
      e.ready.erase(e.ready.begin());
      startOp(slot, id, t);
    }
    return;
  }
  if (e.busy) return;
  if (singleQueue_) {
    // One hardware queue: the engine takes its commands strictly in issue order,
    // so a command waiting on its stream blocks every command behind it.
    if (e.fifo.empty() || op(e.fifo.head).ready < 0) return;
    const std::uint64_t id = e.fifo.head;
    e.fifo.head = op(id).nextInEngineQueue;
    if (e.fifo.head == kNone) e.fifo.tail = kNone;
    startOp(slot, id, t);
    return;
  }
  if (e.ready.empty()) return;
  // Hyper-Q: the command that became ready first (ties: issued first) ...
  auto best = std::min_element(e.ready.begin(), e.ready.end(), [&](std::uint64_t a, std::uint64_t b) {
    return op(a).ready != op(b).ready ? op(a).ready < op(b).ready : a < b;
  });
  // ... except that a copy engine keeps serving the stream whose copy it just
  // finished when that stream's next op is another copy for it (chunked copies): in
  // every H100 trace with such a choice, the same stream went on, ahead of copies of
  // other streams that had been waiting longer (docs/fidelity.md, "copy engines").
  if (e.lastCopyStream >= 0 && e.lastCopyEnd == t) {
    auto same = std::find_if(e.ready.begin(), e.ready.end(), [&](std::uint64_t id) {
      return op(id).cmd.stream == e.lastCopyStream && isCopyKind(op(id).cmd.kind);
    });
    if (same != e.ready.end()) best = same;
  }
  const std::uint64_t id = *best;
  e.ready.erase(best);
  startOp(slot, id, t);
}

void GpuModel::startOp(int slot, std::uint64_t id, double t) {
  Engine& e = engines_[slot];
  GpuOpState& s = mut(id);
  if (slot == kLinkSlot) {
    // Shares the link with the link kernels already running (fluid, like the copies);
    // a stream dependency still resolving is charged as its own time.
    const double wait = std::max(0.0, s.notBefore - t);
    s.remainingSoloNs += wait;
    s.start = t + wait;
    advanceLinkKernels(t);
    s.lastUpdate = t;
    linkRunning_.push_back(id);
    rescheduleLinkKernels(t);
    return;
  }
  e.busy = true;
  e.current = id;
  if (isCopyKind(s.cmd.kind)) {
    // A copy whose stream dependency is still resolving holds its engine until it
    // can start; the wait is charged as engine time (it shares bandwidth like the
    // transfer would, a sub-microsecond approximation that keeps one event per op).
    const double wait = std::max(0.0, s.notBefore - t);
    s.remainingSoloNs += wait;
    s.start = t + wait;
    advanceCopies(t);
    s.lastUpdate = t;
    transferring_.push_back(id);
    rescheduleCopies(t);
    return;
  }
  double start = std::max(t, s.notBefore);
  if (e.lastKernelEnd >= 0) start = std::max(start, e.lastKernelEnd + profile_.kernelGapNs);
  s.start = start;
  scheduleDone(slot, start + s.cmd.soloNs);
}

void GpuModel::advanceCopies(double t) {
  for (std::uint64_t id : transferring_) {
    GpuOpState& s = mut(id);
    s.remainingSoloNs = std::max(0.0, s.remainingSoloNs - (t - s.lastUpdate) * s.rateFactor);
    s.lastUpdate = t;
  }
}

void GpuModel::rescheduleCopies(double t) {
  // Fluid sharing: while both directions move data their rates scale down together
  // so the sum stays within the bidirectional cap.
  double factor = 1;
  if (transferring_.size() > 1) {
    double sum = 0;
    for (std::uint64_t id : transferring_) sum += op(id).cmd.gbps;
    if (sum > profile_.bidirectionalGBps) factor = profile_.bidirectionalGBps / sum;
  }
  for (std::uint64_t id : transferring_) {
    GpuOpState& s = mut(id);
    s.rateFactor = factor;
    scheduleDone(s.engineSlot, t + s.remainingSoloNs / factor);
  }
}

void GpuModel::advanceLinkKernels(double t) {
  for (std::uint64_t id : linkRunning_) {
    GpuOpState& s = mut(id);
    s.remainingSoloNs = std::max(0.0, s.remainingSoloNs - (t - s.lastUpdate) * s.rateFactor);
    s.lastUpdate = t;
  }
}

void GpuModel::rescheduleLinkKernels(double t) {
  // n link kernels running together reach speedup(n) times one kernel's throughput:
  // each progresses at speedup(n) / n of its own rate alone.
  Engine& e = engines_[kLinkSlot];
  if (linkRunning_.empty()) {
    e.busy = false;
    return;
  }
  const int n = int(linkRunning_.size());
  const auto& curve = op(linkRunning_.front()).cmd.link == LinkKind::Mapped ? profile_.mappedStreamsSpeedup
                                                                            : profile_.managedFaultStreamsSpeedup;
  const double rate = streamsSpeedup(curve, n) / n;
  double finish = std::numeric_limits<double>::infinity();
  for (std::uint64_t id : linkRunning_) {
    GpuOpState& s = mut(id);
    s.rateFactor = rate;
    const double f = t + s.remainingSoloNs / rate;
    if (f < finish) {
      finish = f;
      e.current = id;
    }
  }
  e.busy = true;
  scheduleDone(kLinkSlot, finish);
}

void GpuModel::onEngineDone(int slot, double t) {
  Engine& e = engines_[slot];
  const std::uint64_t id = e.current;
  GpuOpState& s = mut(id);
  s.end = t;
  if (slot == kLinkSlot) {
    advanceLinkKernels(t);
    linkRunning_.erase(std::find(linkRunning_.begin(), linkRunning_.end(), id));
    rescheduleLinkKernels(t);
    signal(id, t);
    return;
  }
  e.busy = false;
  if (isCopyKind(s.cmd.kind)) {
    advanceCopies(t);
    transferring_.erase(std::find(transferring_.begin(), transferring_.end(), id));
    rescheduleCopies(t);
    e.lastCopyEnd = t;
    e.lastCopyStream = s.cmd.stream;
  } else {
    e.lastKernelEnd = t;
  }
  if (s.kernelGroup >= 0) {
    KernelGroup& g = groups_[std::size_t(s.kernelGroup - groupBase_)];
    --g.unfinished;
    g.finished.push_back(id);
    // Not yet signalled, so still in its stream's queue: start the kernel behind it.
    const std::uint64_t behind = s.nextInStream;
    if (behind != kNone && op(behind).cmd.kind == OpKind::Kernel && op(behind).ready < 0) makeReady(behind, t);
    if (g.unfinished == 0) {
      std::vector<std::uint64_t> finished;
      finished.swap(g.finished);
      for (std::uint64_t k : finished) signal(k, t);
    }
  } else {
    signal(id, t);
  }
  dispatch(slot, t);
}

void GpuModel::signal(std::uint64_t id, double t) {
  GpuOpState& s = mut(id);
  s.signal = t;
  OpQueue& stream = streams_[std::size_t(s.cmd.stream)];
  if (stream.head != id) throw std::logic_error("simulator: stream order violated");
  stream.head = s.nextInStream;
  if (stream.empty()) {
    stream.tail = kNone;
    return;
  }
  GpuOpState& next = mut(stream.head);
  if (next.ready >= 0) return;
  // Work on another engine waits for the front end to see this op complete (on a
  // device with one copy engine, a D2H followed by an H2D stays on the same engine).
  if (engineFamily(next.engineSlot) != engineFamily(s.engineSlot))
    next.notBefore = t + profile_.streamDependencyNs;
  makeReady(stream.head, t);
}

}  // namespace pipescope
