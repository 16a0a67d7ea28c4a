#include "sim/GpuModel.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "sim/StageCosts.h"

namespace pipescope {

namespace {
constexpr int kEngineKinds = 6;
}

GpuModel::GpuModel(const DeviceProfile& profile)
    : profile_(profile),
      singleQueue_(profile.hardwareQueues <= 1),
      slotOf_(std::size_t(kEngineKinds * kMaxModelGpus * kMaxModelGpus), -1) {
  // GPU 0's engines come first, in the order one-GPU runs always had them.
  GpuCommand c;
  for (EngineId e : {EngineId::H2D, EngineId::D2H, EngineId::Compute}) {
    c.engine = e;
    engineSlot(c);
  }
}

int GpuModel::engineSlot(const GpuCommand& cmd) {
  int kind = int(cmd.engine);
  // One copy engine serves both directions.
  if (cmd.engine == EngineId::D2H && profile_.copyEngines <= 1) kind = int(EngineId::H2D);
  // On one hardware queue a link-bound kernel is a compute kernel like any other.
  if (cmd.engine == EngineId::Link && singleQueue_) kind = int(EngineId::Compute);
  const int peer = cmd.engine == EngineId::PeerLink ? cmd.peer : 0;
  const std::size_t key = std::size_t((kind * kMaxModelGpus + cmd.device) * kMaxModelGpus + peer);
  if (slotOf_[key] < 0) {
    // Kernels follow each other in a stream without the front end's dependency
    // latency, whichever of a GPU's two kernel slots they run on.
    int family = -1;
    if (kind == int(EngineId::Link)) {
      GpuCommand compute;
      compute.engine = EngineId::Compute;
      compute.device = cmd.device;
      family = engineSlot(compute);
    }
    const int slot = int(engines_.size());
    slotOf_[key] = std::int16_t(slot);
    Engine& e = engines_.emplace_back();
    e.device = cmd.device;
    e.link = kind == int(EngineId::Link);
    e.family = family >= 0 ? family : slot;
    // GPU 0's D2H slot exists on one-engine devices too, unused, as it always did.
    if (engines_.size() == 1 && profile_.copyEngines <= 1) engines_.emplace_back().family = 1;
  }
  return slotOf_[key];
}

void GpuModel::scheduleDone(int slot, double t) {
  Engine& e = engines_[std::size_t(slot)];
  e.doneAt = t;
  e.doneSeq = seq_++;
}

std::uint64_t GpuModel::submit(const GpuCommand& cmd, double t) {
  // Submit events are consumed in id order (step), which is their time order only
  // if the host's clock never runs backwards.
  if (t < lastSubmitT_) throw std::logic_error("simulator: command submitted before the previous one");
  if (cmd.device < 0 || cmd.device >= kMaxModelGpus ||
      (cmd.engine == EngineId::PeerLink && (cmd.peer < 0 || cmd.peer >= kMaxModelGpus || cmd.peer == cmd.device)))
    throw std::logic_error("simulator: a command for a GPU or link that does not exist");
  if (cmd.after != kNone && cmd.after >= nextId())
    throw std::logic_error("simulator: a command waits for one not yet submitted");
  if ((cmd.engine == EngineId::Collective) !=
      (cmd.collective >= collectiveBase_ && cmd.collective < collectiveBase_ + int(collectives_.size())))
    throw std::logic_error("simulator: a collective op outside an open collective call");
  lastSubmitT_ = t;
  devicesUsed_ = std::max({devicesUsed_, cmd.device + 1, cmd.peer + 1});
  const std::uint64_t id = nextId();
  const int slot = engineSlot(cmd);
  GpuOpState& s = ops_.append();
  s = GpuOpState{};
  s.cmd = cmd;
  s.engineSlot = slot;
  s.submit = t;
  s.remainingSoloNs = cmd.soloNs;
  s.submitSeq = seq_++;
  s.nextInStream = s.nextInEngineQueue = kNone;
  return id;
}

int GpuModel::beginCollective(int gpus) {
  if (gpus < 1 || gpus > kMaxModelGpus) throw std::logic_error("simulator: a collective over no GPU");
  collectives_.push_back(Collective{gpus, {}, 0});
  return collectiveBase_ + int(collectives_.size()) - 1;
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
  // A collective call is settled once every GPU's op of it is done and forgotten.
  while (!collectives_.empty() && int(collectives_.front().joined.size()) == collectives_.front().gpus &&
         std::all_of(collectives_.front().joined.begin(), collectives_.front().joined.end(),
                     [&](std::uint64_t m) { return m < base_; })) {
    collectives_.pop_front();
    ++collectiveBase_;
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
  for (int slot = 0; slot < int(engines_.size()); ++slot) {
    const Engine& e = engines_[std::size_t(slot)];
    if (!e.busy || e.waiting) continue;
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
    OpQueue& fifo = engines_[std::size_t(s.engineSlot)].fifo;
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
  if (wasEmpty || afterEndedKernel) reachStreamHead(id, t);
}

void GpuModel::reachStreamHead(std::uint64_t id, double t) {
  GpuOpState& s = mut(id);
  const std::uint64_t dep = s.cmd.after;
  // An op forgotten already completed long before (the host side keeps the ops a
  // later command may wait for).
  if (dep != kNone && dep >= base_) {
    const GpuOpState& d = op(dep);
    if (!d.done()) {
      waiters_.push_back({dep, id});
      return;
    }
    s.notBefore = std::max(s.notBefore, d.signal + profile_.streamDependencyNs);
  }
  makeReady(id, t);
}

void GpuModel::makeReady(std::uint64_t id, double t) {
  GpuOpState& s = mut(id);
  s.ready = t;
  if (!singleQueue_) engines_[std::size_t(s.engineSlot)].ready.push_back(id);
  fillLastWave(s.engineSlot, t);
  dispatch(s.engineSlot, t);
}

void GpuModel::fillLastWave(int slot, double t) {
  // A kernel ready behind the running one starts its blocks in the SMs the running
  // one's last, partial wave leaves idle, so that wave costs nothing extra: unless it
  // came too late, once the wave had begun.
  Engine& e = engines_[std::size_t(slot)];
  if (!e.busy || e.link || singleQueue_) return;
  GpuOpState& s = mut(e.current);
  if (s.cmd.kind != OpKind::Kernel || s.cmd.tailNs <= 0 || s.tailFilled) return;
  const double at = std::max(t, s.lastUpdate);  // it may not have started yet (a gap)
  const double remaining = std::max(0.0, s.remainingSoloNs - (at - s.lastUpdate) * s.rateFactor);
  if (remaining <= s.cmd.tailNs) return;
  s.remainingSoloNs = remaining - s.cmd.tailNs;
  s.lastUpdate = at;
  s.tailFilled = true;
  scheduleDone(slot, at + s.remainingSoloNs / s.rateFactor);
}

void GpuModel::dispatch(int slot, double t) {
  Engine& e = engines_[std::size_t(slot)];
  if (e.link) {
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
  Engine& e = engines_[std::size_t(slot)];
  GpuOpState& s = mut(id);
  if (e.link) {
    // Shares the link with the link kernels already running (fluid, like the copies);
    // a stream dependency still resolving is charged as its own time.
    const double wait = std::max(0.0, s.notBefore - t);
    s.remainingSoloNs += wait;
    s.start = t + wait;
    advanceHostTraffic(e.device, t);
    s.lastUpdate = t;
    linkRunning_[std::size_t(e.device)].push_back(id);
    rescheduleHostTraffic(e.device, t, true);
    if (profile_.collectiveYieldShare > 0) retimeCollectiveOn(e.device, t);
    if (profile_.linkKernelSmWeight > 0) setComputeRate(e.device, t);
    return;
  }
  e.busy = true;
  e.current = id;
  const int device = s.cmd.device;
  if (isCopyKind(s.cmd.kind)) {
    // A copy whose stream dependency is still resolving holds its engine until it
    // can start; the wait is charged as engine time (it shares bandwidth like the
    // transfer would, a sub-microsecond approximation that keeps one event per op).
    const double wait = std::max(0.0, s.notBefore - t);
    s.remainingSoloNs += wait;
    s.start = t + wait;
    advanceHostTraffic(device, t);
    s.lastUpdate = t;
    transferring_[std::size_t(device)].push_back(id);
    rescheduleHostTraffic(device, t, false);
    return;
  }
  if (s.cmd.kind == OpKind::Collective) {
    s.start = std::max(t, s.notBefore);
    ++collectivesRunning_[std::size_t(device)];
    setComputeRate(device, t);
    joinCollective(id, t);
    return;
  }
  if (s.cmd.kind != OpKind::Kernel) {  // a peer copy: its link alone, at its own rate
    s.start = std::max(t, s.notBefore);
    scheduleDone(slot, s.start + s.cmd.soloNs);
    return;
  }
  double start = std::max(t, s.notBefore);
  if (e.lastKernelEnd >= 0) start = std::max(start, e.lastKernelEnd + profile_.kernelGapNs);
  s.start = start;
  s.lastUpdate = start;
  s.rateFactor = computeRate(device);
  scheduleDone(slot, start + s.remainingSoloNs / s.rateFactor);
  if (!e.ready.empty()) fillLastWave(slot, t);
  if (profile_.collectiveYieldShare > 0) retimeCollectiveOn(device, t);
  if (profile_.linkKernelSmWeight > 0) retimeLinkKernelsBesideCompute(device, t);
}

void GpuModel::joinCollective(std::uint64_t id, double t) {
  (void)t;
  const GpuOpState& s = op(id);
  Collective& c = collectives_[std::size_t(s.cmd.collective - collectiveBase_)];
  c.lastJoin = c.joined.empty() ? s.start : std::max(c.lastJoin, s.start);
  c.joined.push_back(id);
  if (int(c.joined.size()) < c.gpus) {
    engines_[std::size_t(s.engineSlot)].waiting = true;
    return;
  }
  // The last GPU has joined: the data moves now, and every GPU's op ends together.
  for (std::uint64_t m : c.joined) {
    engines_[std::size_t(op(m).engineSlot)].waiting = false;
    movingCollective_[std::size_t(op(m).cmd.device)] = s.cmd.collective;
  }
  c.remaining = s.cmd.soloNs;
  c.lastUpdate = c.lastJoin;
  c.rate = 1;
  retimeCollectiveOn(s.cmd.device, c.lastJoin);
}

bool GpuModel::kernelRunningOn(int device) const {
  if (!linkRunning_[std::size_t(device)].empty()) return true;
  for (const Engine& e : engines_)
    if (e.device == device && e.busy && !e.link && op(e.current).cmd.kind == OpKind::Kernel) return true;
  return false;
}

void GpuModel::retimeCollectiveOn(int device, double t) {
  const int call = movingCollective_[std::size_t(device)];
  if (call < 0) return;
  Collective& c = collectives_[std::size_t(call - collectiveBase_)];
  if (t > c.lastUpdate) {
    c.remaining = std::max(0.0, c.remaining - (t - c.lastUpdate) * c.rate);
    c.lastUpdate = t;
  }
  // A collective is as slow as its slowest GPU: held back wherever a kernel keeps SMs.
  // Members already ended (at this same instant) are left alone.
  auto moving = [&](std::uint64_t m) { return m >= base_ && op(m).end < 0; };
  double rate = 1;
  if (profile_.collectiveYieldShare > 0)
    for (std::uint64_t m : c.joined)
      if (moving(m) && kernelRunningOn(op(m).cmd.device))
        rate = 1.0 - profile_.collectiveSmShare * profile_.collectiveYieldShare;
  c.rate = std::max(rate, 1e-6);
  const double end = c.lastUpdate + c.remaining / c.rate;
  for (std::uint64_t m : c.joined)
    if (moving(m)) scheduleDone(op(m).engineSlot, end);
}

double GpuModel::kernelRateBesideCollective() const {
  return 1.0 - profile_.collectiveSmShare * (1.0 - profile_.collectiveYieldShare);
}

void GpuModel::setComputeRate(int device, double t) {
  GpuCommand compute;
  compute.engine = EngineId::Compute;
  compute.device = device;
  const int slot = engineSlot(compute);
  const Engine& e = engines_[std::size_t(slot)];
  if (!e.busy) return;
  GpuOpState& s = mut(e.current);
  const double rate = computeRate(device);
  if (rate == s.rateFactor) return;
  // The kernel's progress so far at the old rate; it may not have started yet.
  if (t > s.lastUpdate) {
    s.remainingSoloNs = std::max(0.0, s.remainingSoloNs - (t - s.lastUpdate) * s.rateFactor);
    s.lastUpdate = t;
  }
  s.rateFactor = rate;
  scheduleDone(slot, s.lastUpdate + s.remainingSoloNs / rate);
}

double GpuModel::linkHeldSms(int device) const {
  return profile_.linkKernelSmWeight * double(linkRunning_[std::size_t(device)].size());
}

double GpuModel::computeRate(int device) const {
  const double beside = collectivesRunning_[std::size_t(device)] > 0 ? kernelRateBesideCollective() : 1.0;
  if (profile_.linkKernelSmWeight <= 0) return beside;
  return beside / (1.0 + linkHeldSms(device));
}

double GpuModel::linkSmShare(int device) const {
  if (profile_.linkKernelSmWeight <= 0) return 1.0;
  const int slot = existingSlot(EngineId::Compute, device);
  if (slot < 0) return 1.0;
  const Engine& e = engines_[std::size_t(slot)];
  if (!e.busy || op(e.current).cmd.kind != OpKind::Kernel) return 1.0;
  const double held = linkHeldSms(device);
  return held / (1.0 + held);
}

void GpuModel::retimeLinkKernelsBesideCompute(int device, double t) {
  if (linkRunning_[std::size_t(device)].empty()) return;
  advanceLinkKernels(device, t);
  rescheduleLinkKernels(device, t, hostLinksShared() ? hostShare() : HostShare{}, true);
}

void GpuModel::advanceCopies(int device, double t) {
  for (std::uint64_t id : transferring_[std::size_t(device)]) {
    GpuOpState& s = mut(id);
    s.remainingSoloNs = std::max(0.0, s.remainingSoloNs - (t - s.lastUpdate) * s.rateFactor);
    s.lastUpdate = t;
  }
}

double GpuModel::linkFactor(int device) const {
  // Fluid sharing: while both directions of a GPU's host link move data their rates
  // scale down together so the sum stays within the bidirectional cap.
  const auto& moving = transferring_[std::size_t(device)];
  double factor = 1;
  if (moving.size() > 1) {
    double sum = 0;
    for (std::uint64_t id : moving) sum += op(id).cmd.gbps;
    if (sum > profile_.bidirectionalGBps) factor = profile_.bidirectionalGBps / sum;
  }
  return factor;
}

bool GpuModel::hostLinksShared() const {
  return profile_.hostLinksGBps > 0 || profile_.hostLinksH2dGBps > 0 || profile_.hostLinksD2hGBps > 0;
}

void GpuModel::advanceHostTraffic(int device, double t) {
  if (!hostLinksShared()) {
    advanceCopies(device, t);
    advanceLinkKernels(device, t);
    return;
  }
  for (int d = 0; d < devicesUsed_; ++d) {
    advanceCopies(d, t);
    advanceLinkKernels(d, t);
  }
}

GpuModel::HostShare GpuModel::hostShare() const {
  // The host's side of every GPU's link together: while more than one GPU moves
  // bytes, each direction's traffic (each within its own link's cap) slows by the same
  // factor to fit that direction's figure, then all of it to fit the figure for both.
  // One GPU alone is bound by its own link only, so one-GPU runs never see this.
  // Link kernels (mapped memory, managed faults) count at their average rate alone.
  int devices = 0;
  double h2d = 0, d2h = 0;
  for (int d = 0; d < devicesUsed_; ++d) {
    bool moves = false;
    const auto& moving = transferring_[std::size_t(d)];
    if (!moving.empty()) {
      moves = true;
      const double factor = linkFactor(d);
      for (std::uint64_t id : moving) (op(id).cmd.kind == OpKind::CopyH2D ? h2d : d2h) += op(id).cmd.gbps * factor;
    }
    const auto& kernels = linkRunning_[std::size_t(d)];
    if (!kernels.empty()) {
      const double rate = linkStreamsRate(d);
      for (std::uint64_t id : kernels) {
        const GpuCommand& c = op(id).cmd;
        if (c.soloNs <= 0 || (c.hostInBytes == 0 && c.hostOutBytes == 0)) continue;
        moves = true;
        h2d += double(c.hostInBytes) / c.soloNs * rate;
        d2h += double(c.hostOutBytes) / c.soloNs * rate;
      }
    }
    if (moves) ++devices;
  }
  HostShare shared{1.0, 1.0};
  if (devices > 1) {
    auto fit = [](double rate, double cap) { return cap > 0 && rate > cap ? cap / rate : 1.0; };
    shared.h2d = fit(h2d, profile_.hostLinksH2dGBps);
    shared.d2h = fit(d2h, profile_.hostLinksD2hGBps);
    const double both = fit(h2d * shared.h2d + d2h * shared.d2h, profile_.hostLinksGBps);
    shared.h2d *= both;
    shared.d2h *= both;
  }
  return shared;
}

void GpuModel::rescheduleHostTraffic(int device, double t, bool linkKernel) {
  if (!hostLinksShared()) {
    if (linkKernel)
      rescheduleLinkKernels(device, t, {1.0, 1.0});
    else
      rescheduleCopies(device, t, {1.0, 1.0});
    return;
  }
  const HostShare shared = hostShare();
  for (int d = 0; d < devicesUsed_; ++d) {
    // The kind that changed is re-timed on every GPU, the other kind where its rate moved.
    const bool own = d == device;
    if (own || !transferring_[std::size_t(d)].empty()) rescheduleCopies(d, t, shared, linkKernel);
    if (own || !linkRunning_[std::size_t(d)].empty()) rescheduleLinkKernels(d, t, shared, !(own && linkKernel));
  }
}

void GpuModel::rescheduleCopies(int device, double t, HostShare shared, bool ifChanged) {
  const auto& moving = transferring_[std::size_t(device)];
  const double link = linkFactor(device);
  auto factorOf = [&](const GpuOpState& s) { return link * (s.cmd.kind == OpKind::CopyH2D ? shared.h2d : shared.d2h); };
  if (ifChanged &&
      std::all_of(moving.begin(), moving.end(), [&](std::uint64_t id) { return op(id).rateFactor == factorOf(op(id)); }))
    return;
  for (std::uint64_t id : moving) {
    GpuOpState& s = mut(id);
    const double factor = factorOf(s);
    s.rateFactor = factor;
    scheduleDone(s.engineSlot, t + s.remainingSoloNs / factor);
  }
}

int GpuModel::existingSlot(EngineId kind, int device) const {
  return slotOf_[std::size_t((int(kind) * kMaxModelGpus + device) * kMaxModelGpus)];
}

int GpuModel::linkSlot(int device) const {
  if (singleQueue_) return -1;
  return existingSlot(EngineId::Link, device);
}

double GpuModel::linkStreamsRate(int device) const {
  // n link kernels running together reach speedup(n) times one kernel's throughput:
  // each progresses at speedup(n) / n of its own rate alone.
  const auto& running = linkRunning_[std::size_t(device)];
  if (running.empty()) return 1.0;
  const int n = int(running.size());
  double speedup = 1;
  if (op(running.front()).cmd.link == LinkKind::Mapped) {
    speedup = streamsSpeedup(profile_.mappedStreamsSpeedup, n);
  } else {
    // Faults of mixed sizes overlap as the largest of them does: the largest fault
    // holds the driver's fault queue longest, and large faults overlap least.
    std::uint64_t largest = 0;
    for (std::uint64_t id : running) largest = std::max(largest, op(id).cmd.hostInBytes);
    speedup = managedFaultStreamsSpeedup(profile_, n, largest);
  }
  return speedup / n;
}

void GpuModel::advanceLinkKernels(int device, double t) {
  for (std::uint64_t id : linkRunning_[std::size_t(device)]) {
    GpuOpState& s = mut(id);
    s.remainingSoloNs = std::max(0.0, s.remainingSoloNs - (t - s.lastUpdate) * s.rateFactor);
    s.lastUpdate = t;
  }
}

void GpuModel::rescheduleLinkKernels(int device, double t, HostShare shared, bool ifChanged) {
  const int slot = linkSlot(device);
  if (slot < 0) return;
  Engine& e = engines_[std::size_t(slot)];
  const auto& running = linkRunning_[std::size_t(device)];
  if (running.empty()) {
    e.busy = false;
    return;
  }
  const double rate = linkStreamsRate(device);
  const double smShare = linkSmShare(device);
  // Held back by the more crowded of the host directions it uses.
  auto factorOf = [&](const GpuOpState& s) {
    double share = 1.0;
    if (s.cmd.hostInBytes > 0) share = std::min(share, shared.h2d);
    if (s.cmd.hostOutBytes > 0) share = std::min(share, shared.d2h);
    return rate * share * smShare;
  };
  if (ifChanged &&
      std::all_of(running.begin(), running.end(), [&](std::uint64_t id) { return op(id).rateFactor == factorOf(op(id)); }))
    return;
  double finish = std::numeric_limits<double>::infinity();
  for (std::uint64_t id : running) {
    GpuOpState& s = mut(id);
    s.rateFactor = factorOf(s);
    const double f = t + s.remainingSoloNs / s.rateFactor;
    if (f < finish) {
      finish = f;
      e.current = id;
    }
  }
  e.busy = true;
  scheduleDone(slot, finish);
}

void GpuModel::onEngineDone(int slot, double t) {
  Engine& e = engines_[std::size_t(slot)];
  const std::uint64_t id = e.current;
  GpuOpState& s = mut(id);
  s.end = t;
  if (e.link) {
    auto& running = linkRunning_[std::size_t(e.device)];
    advanceHostTraffic(e.device, t);
    running.erase(std::find(running.begin(), running.end(), id));
    rescheduleHostTraffic(e.device, t, true);
    if (profile_.collectiveYieldShare > 0) retimeCollectiveOn(e.device, t);
    if (profile_.linkKernelSmWeight > 0) setComputeRate(e.device, t);
    signal(id, t);
    return;
  }
  e.busy = false;
  const int device = s.cmd.device;
  if (isCopyKind(s.cmd.kind)) {
    auto& moving = transferring_[std::size_t(device)];
    advanceHostTraffic(device, t);
    moving.erase(std::find(moving.begin(), moving.end(), id));
    rescheduleHostTraffic(device, t, false);
    e.lastCopyEnd = t;
    e.lastCopyStream = s.cmd.stream;
  } else if (s.cmd.kind == OpKind::Collective) {
    --collectivesRunning_[std::size_t(device)];
    movingCollective_[std::size_t(device)] = -1;
    setComputeRate(device, t);
  } else if (s.cmd.kind == OpKind::Kernel) {
    e.lastKernelEnd = t;
    if (profile_.collectiveYieldShare > 0) retimeCollectiveOn(device, t);
    if (profile_.linkKernelSmWeight > 0) retimeLinkKernelsBesideCompute(device, t);
  }
  if (s.kernelGroup >= 0) {
    KernelGroup& g = groups_[std::size_t(s.kernelGroup - groupBase_)];
    --g.unfinished;
    g.finished.push_back(id);
    // Not yet signalled, so still in its stream's queue: start the kernel behind it.
    const std::uint64_t behind = s.nextInStream;
    if (behind != kNone && op(behind).cmd.kind == OpKind::Kernel && op(behind).ready < 0) reachStreamHead(behind, t);
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
  } else if (GpuOpState& next = mut(stream.head); next.ready < 0) {
    // Work on another engine waits for the front end to see this op complete (on a
    // device with one copy engine, a D2H followed by an H2D stays on the same engine).
    if (engines_[std::size_t(next.engineSlot)].family != engines_[std::size_t(s.engineSlot)].family)
      next.notBefore = t + profile_.streamDependencyNs;
    if (s.cmd.kind == OpKind::Kernel && next.cmd.afterKernelNs > 0)
      next.notBefore = std::max(next.notBefore, t + profile_.streamDependencyNs + next.cmd.afterKernelNs);
    reachStreamHead(stream.head, t);
  }
  // Ops of other streams that waited for this one (cudaStreamWaitEvent).
  if (waiters_.empty()) return;
  std::vector<std::uint64_t> released;
  for (std::size_t i = 0; i < waiters_.size();) {
    if (waiters_[i].on == id) {
      released.push_back(waiters_[i].op);
      waiters_.erase(waiters_.begin() + std::ptrdiff_t(i));
    } else {
      ++i;
    }
  }
  for (std::uint64_t w : released) {
    GpuOpState& ws = mut(w);
    ws.notBefore = std::max(ws.notBefore, t + profile_.streamDependencyNs);
    makeReady(w, t);
  }
}

}  // namespace pipescope
