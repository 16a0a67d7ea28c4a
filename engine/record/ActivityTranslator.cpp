#include "record/ActivityTranslator.h"

#include <algorithm>

#include "trace/Lane.h"
#include "trace/Op.h"

namespace pipescope::record {

namespace {

constexpr std::size_t kRememberedCalls = 1u << 18;  // launching calls kept for late GPU records

std::uint8_t laneKind(LaneKind k) { return std::uint8_t(k); }
std::uint8_t opKind(OpKind k) { return std::uint8_t(k); }

bool isSyncCall(const std::string& name) { return name.find("Synchronize") != std::string::npos; }

/// cudaMemcpy, cudaMemcpy2D, cuMemcpyHtoD...: without "Async" the host waits for the copy.
/// (A plain cudaMemset returns at once for device memory: not a wait.)
bool isBlockingCopyCall(const std::string& name) {
  return (name.rfind("cudaMemcpy", 0) == 0 || name.rfind("cuMemcpy", 0) == 0) && name.find("Async") == std::string::npos;
}

std::string deviceSuffix(std::uint32_t device) { return device == 0 ? "" : " (GPU " + std::to_string(device) + ")"; }

}  // namespace

std::string apiDisplayName(const std::string& cuptiName) {
  const std::size_t v = cuptiName.rfind("_v");
  if (v == std::string::npos || v + 2 >= cuptiName.size()) return cuptiName;
  for (std::size_t i = v + 2; i < cuptiName.size(); ++i)
    if (cuptiName[i] < '0' || cuptiName[i] > '9') return cuptiName;
  return cuptiName.substr(0, v);
}

// ---------------------------------------------------------------- tables

std::uint32_t ActivityTranslator::declareLane(std::uint8_t kind, std::int32_t index, std::int32_t device,
                                              std::string name) {
  wire::Lane l;
  l.id = nextLane_++;
  l.kind = kind;
  l.index = index;
  l.device = device;
  l.name = std::move(name);
  declarations_.add(l);
  return l.id;
}

std::uint32_t ActivityTranslator::nameId(const std::string& text) {
  if (text.empty()) return 0;
  auto [it, inserted] = names_.emplace(text, nextName_);
  if (inserted) {
    declarations_.add(wire::Name{nextName_, text});
    ++nextName_;
  }
  return it->second;
}

ActivityTranslator::Thread& ActivityTranslator::thread(std::uint32_t threadId) {
  auto it = threads_.find(threadId);
  if (it != threads_.end()) return it->second;
  Thread t;
  t.ordinal = int(threads_.size());
  t.name = "thread #" + std::to_string(t.ordinal + 1);
  return threads_.emplace(threadId, std::move(t)).first->second;
}

void ActivityTranslator::threadSighting(const ThreadSighting& t) { sightings_[t.correlation] = t; }

void ActivityTranslator::threadNamed(std::uint32_t threadId, std::int64_t tid, const std::string& name) {
  nameThread(thread(threadId), tid, name);
}

void ActivityTranslator::nameThread(Thread& t, std::int64_t tid, const std::string& name) const {
  // Lanes take the thread's name when they are made: it can change until then.
  if (t.runtimeLane != wire::kWireNone || t.driverLane != wire::kWireNone || !t.nvtxLanes.empty()) return;
  if (tid == options_.pid)
    t.name = "main thread";
  else if (!name.empty() && name != options_.processName)
    t.name = name;
  else
    t.name = "thread " + std::to_string(tid);
}

std::uint32_t ActivityTranslator::apiLane(std::uint32_t threadId, bool driver) {
  Thread& t = thread(threadId);
  std::uint32_t& lane = driver ? t.driverLane : t.runtimeLane;
  if (lane == wire::kWireNone)
    lane = declareLane(laneKind(LaneKind::HostSubmit), t.ordinal * 2 + (driver ? 1 : 0), -1,
                       t.name + (driver ? " · driver API" : " · CUDA API"));
  return lane;
}

std::uint32_t ActivityTranslator::nvtxLane(Thread& t, int level) {
  while (int(t.nvtxLanes.size()) <= level) {
    const int l = int(t.nvtxLanes.size());
    t.nvtxLanes.push_back(declareLane(laneKind(LaneKind::HostOther), t.ordinal * kMaxNvtxLevels + l, -1,
                                      t.name + " · NVTX" + (l > 0 ? " · " + std::to_string(l + 1) : "")));
  }
  return t.nvtxLanes[std::size_t(level)];
}

ActivityTranslator::Stream& ActivityTranslator::stream(std::uint32_t device, std::uint32_t context,
                                                       std::uint32_t streamId) {
  auto [it, inserted] = streams_.try_emplace(StreamKey{context, streamId});
  Stream& s = it->second;
  if (!inserted) return s;
  // CUPTI's stream id where it is free (what Nsight shows too), else the next free number.
  std::int32_t number = streamId <= 0x7FFF ? std::int32_t(streamId) : 0x4000;
  while (streamNumbers_.count(number)) ++number;
  streamNumbers_[number] = true;
  s.number = number;
  s.device = device;
  s.lane = declareLane(laneKind(LaneKind::Stream), number, std::int32_t(device),
                       (device == 0 ? "" : "GPU " + std::to_string(device) + " ") + "stream " +
                           std::to_string(streamId));
  return s;
}

ActivityTranslator::Engines& ActivityTranslator::engines(std::uint32_t device) {
  auto [it, inserted] = engines_.try_emplace(device);
  if (inserted) {
    const auto d = std::int32_t(device);
    it->second.h2d = declareLane(laneKind(LaneKind::CopyEngineH2D), d, d, "H2D copy engine" + deviceSuffix(device));
    it->second.d2h = declareLane(laneKind(LaneKind::CopyEngineD2H), d, d, "D2H copy engine" + deviceSuffix(device));
    it->second.compute = declareLane(laneKind(LaneKind::ComputeEngine), d, d, "compute engine" + deviceSuffix(device));
  }
  return it->second;
}

void ActivityTranslator::rememberApi(std::uint32_t correlation, std::int64_t start) {
  if (correlation == 0) return;
  if (apiStart_.emplace(correlation, start).second) apiOrder_.push_back(correlation);
  while (apiOrder_.size() > kRememberedCalls) {
    apiStart_.erase(apiOrder_.front());
    apiOrder_.pop_front();
  }
}

// ---------------------------------------------------------------- records

void ActivityTranslator::device(const DeviceRecord& d) {
  if (options_.onlyDevice >= 0 && d.id != std::uint32_t(options_.onlyDevice)) return;
  if (devicesSent_[d.id]) return;
  devicesSent_[d.id] = true;
  wire::Device m;
  m.id = d.id;
  m.name = d.name;
  m.computeMajor = d.computeMajor;
  m.computeMinor = d.computeMinor;
  m.memoryBytes = d.memoryBytes;
  m.multiprocessors = d.multiprocessors;
  m.copyEngines = d.copyEngines;
  declarations_.add(m);
}

void ActivityTranslator::api(const ApiRecord& r) {
  seeTime(r.end);
  // The first call a thread was seen making names it (lanes take the name when made).
  if (auto s = sightings_.find(r.correlation); s != sightings_.end()) {
    nameThread(thread(r.threadId), s->second.tid, s->second.name);
    sightings_.erase(s);
  }
  wire::Op op;
  op.kind = opKind(isSyncCall(r.name) || isBlockingCopyCall(r.name) ? OpKind::HostSync : OpKind::ApiCall);
  op.submit = op.ready = op.start = r.start;
  op.end = std::max(r.start, r.end);
  op.correlation = r.correlation;
  op.name = nameId(r.name);
  heldApi_.push_back({op, r.driver, r.threadId, round_, r.name.find("emcpy") != std::string::npos});
  if (!r.driver) {
    rememberApi(r.correlation, r.start);
    if (r.correlation != 0 && runtimeCorrelations_.emplace(r.correlation, true).second) {
      runtimeOrder_.push_back(r.correlation);
      while (runtimeOrder_.size() > kRememberedCalls) {
        runtimeCorrelations_.erase(runtimeOrder_.front());
        runtimeOrder_.pop_front();
      }
    }
  } else if (!apiStart_.count(r.correlation)) {
    rememberApi(r.correlation, r.start);  // a driver call that launched work by itself
  }
}

void ActivityTranslator::gpu(const GpuRecord& r) {
  if (options_.onlyDevice >= 0 && r.device != std::uint32_t(options_.onlyDevice)) {
    ++leftOut_;
    return;
  }
  seeTime(r.end);
  Stream& s = stream(r.device, r.context, r.stream);
  Engines& e = engines(r.device);
  if (r.correlation != 0) gpuSeen_[r.correlation] = true;
  wire::Op op;
  op.start = r.start;
  op.end = std::max(r.start, r.end);
  op.submit = op.ready = op.start;
  op.bytes = r.bytes;
  op.correlation = r.correlation;
  op.lane = s.lane;
  op.stream = s.number;
  switch (r.kind) {
    case GpuRecord::Kind::Kernel:
      op.kind = opKind(OpKind::Kernel);
      op.engineLane = e.compute;
      op.name = nameId(r.name);
      break;
    case GpuRecord::Kind::Memset:
      op.kind = opKind(OpKind::Memset);
      op.engineLane = e.compute;
      break;
    case GpuRecord::Kind::Copy:
      if (r.direction == GpuRecord::Direction::HostToDevice) {
        op.kind = opKind(OpKind::CopyH2D);
        op.engineLane = e.h2d;
      } else if (r.direction == GpuRecord::Direction::DeviceToHost) {
        op.kind = opKind(OpKind::CopyD2H);
        op.engineLane = e.d2h;
      } else {
        // Device-to-device (and peer) copies: shown with the device's own work, as
        // the PyTorch-trace importer shows them.
        op.kind = opKind(OpKind::Kernel);
        op.engineLane = e.compute;
        op.name = nameId("device copy");
      }
      if (r.hostMemory == GpuRecord::HostMemory::Pageable) op.flags |= kOpPageable;
      if (r.hostMemory == GpuRecord::HostMemory::Managed) op.flags |= kOpManaged;
      if (!r.async) op.flags |= kOpBlockingCall;
      // The call that issued a blocking or pageable copy held the host until the copy
      // was staged or done: that call is a wait.
      if (r.correlation != 0 && (op.flags & (kOpPageable | kOpBlockingCall)))
        hostWaitedFor_[r.correlation] |= op.flags;
      break;
  }
  s.waiting.push_back({op, round_});
}

void ActivityTranslator::sync(const SyncRecord& r) {
  if (r.correlation == 0) return;
  seeTime(r.end);
  std::int32_t number = -1;
  if (r.type == SyncRecord::Type::StreamSynchronize) {
    auto it = streams_.find(StreamKey{r.context, r.stream});
    if (it != streams_.end()) number = it->second.number;
  }
  // A stream waiting for an event holds no host thread; an unknown type (a query) waits for nothing.
  if (r.type != SyncRecord::Type::StreamWaitEvent && r.type != SyncRecord::Type::Unknown)
    syncedStream_[r.correlation] = number;
}

void ActivityTranslator::marker(const MarkerRecord& r) {
  seeTime(r.time);
  Thread& t = thread(r.threadId);
  if (t.levelBusy.empty()) t.levelBusy.assign(kMaxNvtxLevels, false);
  auto freeLevel = [&t] {
    for (int l = 0; l < kMaxNvtxLevels; ++l)
      if (!t.levelBusy[std::size_t(l)]) return l;
    return kMaxNvtxLevels - 1;  // deeper nesting shares the last lane
  };
  switch (r.point) {
    case MarkerRecord::Point::Start: {
      const int level = freeLevel();
      t.levelBusy[std::size_t(level)] = true;
      openRanges_[r.id] = OpenRange{r.time, r.threadId, level, nameId(r.name.empty() ? "NVTX range" : r.name)};
      break;
    }
    case MarkerRecord::Point::End: {
      auto it = openRanges_.find(r.id);
      if (it == openRanges_.end()) return;  // its start came before recording began
      const OpenRange o = it->second;
      openRanges_.erase(it);
      Thread& owner = thread(o.threadId);
      owner.levelBusy[std::size_t(o.level)] = false;
      wire::Op op;
      op.kind = opKind(OpKind::Annotation);
      op.flags = kOpUserRange | kOpHostWork;
      op.submit = op.ready = op.start = o.start;
      op.end = std::max(o.start, r.time);
      op.name = o.name;
      op.lane = nvtxLane(owner, o.level);
      ready_.push_back(op);
      break;
    }
    case MarkerRecord::Point::Instant: {
      wire::Op op;
      op.kind = opKind(OpKind::Annotation);
      op.flags = kOpUserRange | kOpHostWork;
      op.submit = op.ready = op.start = op.end = r.time;
      op.name = nameId(r.name.empty() ? "NVTX mark" : r.name);
      op.lane = nvtxLane(t, freeLevel());
      ready_.push_back(op);
      break;
    }
  }
}

// ---------------------------------------------------------------- rounds

void ActivityTranslator::emitHeldApi(bool all) {
  std::vector<HeldApi> keep;
  for (HeldApi& h : heldApi_) {
    if (h.driver && runtimeCorrelations_.count(h.op.correlation)) continue;  // nested in a runtime call
    // A driver call waits a round for the runtime call it may be nested in, a copy call
    // for its copy.
    const bool copyPending =
        h.copyCall && !gpuSeen_.count(h.op.correlation) && !gpuSeenBefore_.count(h.op.correlation);
    if ((h.driver || copyPending) && !all && round_ - h.round < 1) {
      keep.push_back(h);
      continue;
    }
    if (hostWaitedFor_.count(h.op.correlation) || hostWaitedBefore_.count(h.op.correlation))
      h.op.kind = opKind(OpKind::HostSync);
    for (const auto* synced : {&syncedStream_, &syncedBefore_}) {
      if (auto s = synced->find(h.op.correlation); s != synced->end()) {
        h.op.kind = opKind(OpKind::HostSync);
        h.op.stream = s->second;
      }
    }
    h.op.lane = apiLane(h.threadId, h.driver);
    ready_.push_back(h.op);
  }
  heldApi_ = std::move(keep);
}

void ActivityTranslator::emitReadyGpu(bool all) {
  for (auto& [key, s] : streams_) {
    while (!s.waiting.empty()) {
      Stream::Waiting& w = s.waiting.front();
      wire::Op& op = w.op;
      auto launch = op.correlation != 0 ? apiStart_.find(op.correlation) : apiStart_.end();
      const bool resolved = launch != apiStart_.end();
      if (!resolved && op.correlation != 0 && !all && round_ - w.round < kHoldRounds) break;  // in order: the rest waits too
      if (resolved) op.submit = std::min(launch->second, op.start);
      op.ready = std::clamp(s.prevEnd, op.submit, op.start);
      s.prevEnd = std::max(s.prevEnd, op.end);
      ready_.push_back(op);
      s.waiting.pop_front();
    }
  }
}

void ActivityTranslator::endRound(wire::Encoder& out) {
  emitHeldApi(false);
  emitReadyGpu(false);
  // What this round's records said about calls holds for calls of this round and the next.
  hostWaitedBefore_ = std::move(hostWaitedFor_);
  hostWaitedFor_.clear();
  syncedBefore_ = std::move(syncedStream_);
  syncedStream_.clear();
  gpuSeenBefore_ = std::move(gpuSeen_);
  gpuSeen_.clear();
  ++round_;
  out.append(declarations_.take());  // declarations before the ops that use them
  if (!ready_.empty()) {
    opsSent_ += ready_.size();
    out.add(wire::Ops{std::move(ready_)});
    ready_.clear();
  }
}

void ActivityTranslator::finish(wire::Encoder& out) {
  emitHeldApi(true);
  emitReadyGpu(true);
  for (auto& [id, o] : openRanges_) {
    wire::Op op;
    op.kind = opKind(OpKind::Annotation);
    op.flags = kOpUserRange | kOpHostWork;
    op.submit = op.ready = op.start = o.start;
    op.end = std::max(o.start, lastTime_);
    op.name = o.name;
    op.lane = nvtxLane(thread(o.threadId), o.level);
    ready_.push_back(op);
  }
  openRanges_.clear();
  endRound(out);
}

}  // namespace pipescope::record
