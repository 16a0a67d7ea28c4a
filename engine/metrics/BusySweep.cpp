#include "metrics/BusySweep.h"

#include <algorithm>
#include <array>
#include <limits>

#include "metrics/StartOrder.h"

namespace pipescope {

namespace {

constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();

// Host work: what a thread spends its own time on. Syncs are waiting, annotations
// carry no pipeline meaning, GPU kinds run elsewhere.
bool isHostWork(OpKind k) { return !isGpuKind(k) && k != OpKind::HostSync && k != OpKind::Annotation; }
// A copy whose API call holds the host until the copy is done (blocking cudaMemcpy,
// or any pageable copy): the submit thread is waiting then, not working.
bool holdsHost(const Op& op) { return isCopyKind(op.kind) && (op.flags & (kOpBlockingCall | kOpPageable)) != 0; }

// The kinds of time the figures unite, intersect and subtract.
enum Set : std::uint8_t { H2D, D2H, Kernel, Gpu, Holds, Pre, Post, Api, HostRange, Sync, kSets };

// One op as the sweep needs it: its clipped interval, the sets it belongs to, and
// the (up to two) lanes it keeps busy.
struct Item {
  std::int64_t s = 0, e = 0;
  std::uint16_t sets = 0;
  std::uint16_t lane = kNoLane, engineLane = kNoLane;
};
static_assert(sizeof(Item) == 24);

Item itemOf(const Op& op, const PlacedOp& p, const std::vector<LaneKind>& laneKinds) {
  Item it;
  it.s = p.s;
  it.e = p.e;
  const auto add = [&](Set s) { it.sets |= std::uint16_t(1u << s); };
  if (p.role == PlacedOp::HostRange) {
    add(HostRange);
    it.lane = op.lane;
    return it;
  }
  switch (op.kind) {
    case OpKind::CopyH2D: add(H2D); break;
    case OpKind::CopyD2H: add(D2H); break;
    case OpKind::Kernel: add(Kernel); break;
    case OpKind::Preprocess: add(Pre); break;
    case OpKind::Postprocess: add(Post); break;
    case OpKind::HostSync: add(Sync); break;
    default: break;
  }
  if (isGpuKind(op.kind)) add(Gpu);
  if (holdsHost(op)) add(Holds);
  if (op.lane < laneKinds.size()) {
    const bool hostLane = isHostLane(laneKinds[op.lane]);
    if (hostLane ? isHostWork(op.kind) : op.kind != OpKind::HostSync) it.lane = op.lane;
    if (hostLane && op.kind == OpKind::ApiCall) add(Api);
  }
  if (op.engineLane != op.lane && op.engineLane < laneKinds.size() && isGpuKind(op.kind)) it.engineLane = op.engineLane;
  return it;
}

class Sweep {
 public:
  Sweep(const SweepPlan& plan, std::size_t lanes) : plan_(plan), runs_(lanes), tracked_(lanes, 0), isLive_(lanes, 0) {
    out_.lane.assign(lanes, 0);
    out_.laneOutsideHolds.assign(lanes, 0);
    out_.laneHostWork.assign(lanes, 0);
    maxEnd_.fill(kNone);
  }

  void setSubmitLanes(const std::vector<std::uint16_t>& lanes) {
    for (std::uint16_t l : lanes) tracked_[l] |= kSubmit;
  }
  void setHostRangeLanes(const std::vector<std::uint16_t>& lanes) {
    for (std::uint16_t l : lanes) tracked_[l] |= kHostRanges;
  }

  /// Items must come in non-decreasing start order.
  void add(const Item& it) {
    if (pos_ == kNone) {
      pos_ = it.s;
    } else if (it.s > pos_) {
      closeSegment(it.s);
      pos_ = it.s;
    }
    for (int s = 0; s < kSets; ++s)
      if (it.sets & (1u << s)) maxEnd_[std::size_t(s)] = std::max(maxEnd_[std::size_t(s)], it.e);
    if (it.lane != kNoLane) feedLane(it.lane, it.s, it.e);
    if (it.engineLane != kNoLane) feedLane(it.engineLane, it.s, it.e);
  }

  BusyTimes finish() {
    if (pos_ != kNone) closeSegment(std::numeric_limits<std::int64_t>::max());
    for (std::size_t l = 0; l < runs_.size(); ++l)
      if (runs_[l].e != kNone) out_.lane[l] += runs_[l].e - runs_[l].s;
    return std::move(out_);
  }

 private:
  struct Run {  // a lane's running union: its current stretch of busy time
    std::int64_t s = 0, e = kNone;
  };

  void feedLane(std::uint16_t lane, std::int64_t s, std::int64_t e) {
    if (tracked_[lane] != 0 && isLive_[lane] == 0) {
      isLive_[lane] = 1;
      live_.push_back(lane);
    }
    Run& r = runs_[lane];
    if (r.e == kNone || s > r.e) {
      if (r.e != kNone) out_.lane[lane] += r.e - r.s;
      r.s = s;
      r.e = e;
    } else {
      r.e = std::max(r.e, e);
    }
  }

  // Adds the segment [pos_, next), inside which each set covers a prefix.
  void closeSegment(std::int64_t next) {
    const std::int64_t pos = pos_;
    const auto len = [pos, next](std::int64_t end) { return end > pos ? std::min(next, end) - pos : 0; };
    const auto covered = [&](Set s) { return len(maxEnd_[std::size_t(s)]); };
    const std::int64_t h = covered(H2D), d = covered(D2H), k = covered(Kernel), hold = covered(Holds);
    const std::int64_t pre = covered(Pre), post = covered(Post), api = covered(Api);
    // The pipeline's span starts at a pipeline op's start, so it is a prefix here too.
    const std::int64_t span = plan_.anyPipelineOps && pos >= plan_.first ? len(plan_.last) : 0;
    const std::int64_t copies = std::max(h, d), cpu = std::max(pre, post);
    const std::int64_t notApi = std::max(cpu, hold), notDispatch = std::max(api, notApi);
    const std::int64_t waits = std::max(covered(Sync), hold);
    out_.h2d += h;
    out_.d2h += d;
    out_.kernel += k;
    out_.copies += copies;
    out_.gpu += covered(Gpu);
    out_.kernelAndCopy += std::min(k, copies);
    out_.holds += hold;
    out_.preprocess += pre;
    out_.cpu += cpu;
    out_.notApi += notApi;
    out_.notDispatch += notDispatch;
    // Host ranges in the span cover [waits, min(ranges, span)): the part past notDispatch.
    out_.dispatch += std::max<std::int64_t>(0, std::min(covered(HostRange), span) - std::max(waits, notDispatch));
    // Only a lane whose busy stretch reaches into the segment adds to it; walking just
    // those keeps the sweep linear where a trace of several ranks has many host lanes.
    for (std::size_t i = 0; i < live_.size();) {
      const std::uint16_t l = live_[i];
      const std::int64_t busy = len(runs_[l].e);
      if (tracked_[l] & kSubmit) out_.laneOutsideHolds[l] += std::max<std::int64_t>(0, busy - hold);
      if (tracked_[l] & kHostRanges) out_.laneHostWork[l] += std::max<std::int64_t>(0, std::min(busy, span) - waits);
      if (runs_[l].e <= next) {  // past this segment: nothing more until the lane is fed again
        isLive_[l] = 0;
        live_[i] = live_.back();
        live_.pop_back();
      } else {
        ++i;
      }
    }
  }

  const SweepPlan& plan_;
  std::vector<Run> runs_;
  std::array<std::int64_t, kSets> maxEnd_{};
  std::int64_t pos_ = kNone;
  static constexpr std::uint8_t kSubmit = 1, kHostRanges = 2;
  std::vector<std::uint8_t> tracked_;  // per lane: kSubmit | kHostRanges, the lanes whose time is split
  std::vector<std::uint8_t> isLive_;   // per lane: in live_
  std::vector<std::uint16_t> live_;    // tracked lanes whose current busy stretch may reach past pos_
  BusyTimes out_;
};

}  // namespace

PlacedOp placeOp(const Op& op, const MetricsInput& in, const std::vector<LaneKind>& laneKinds) {
  if (op.end < op.start) return {};  // inconsistent imports are skipped
  const bool windowed = in.toNs > in.fromNs;
  std::int64_t s = op.start, e = op.end;
  if (op.kind == OpKind::Annotation) {
    if ((op.flags & kOpHostWork) == 0 || op.lane >= laneKinds.size() || !isHostLane(laneKinds[op.lane])) return {};
    if (windowed) s = std::max(s, in.fromNs), e = std::min(e, in.toNs);
    if (e <= s) return {};
    return {PlacedOp::HostRange, s, e};
  }
  if (windowed) {
    s = std::max(s, in.fromNs);
    e = std::min(e, in.toNs);
    if (e < s || (e == s && (op.start >= in.toNs || op.end < in.fromNs))) return {};
  }
  return {PlacedOp::Pipeline, s, e};
}

BusyTimes sweepBusyTimes(const MetricsInput& in, const std::vector<LaneKind>& laneKinds, const SweepPlan& plan) {
  Sweep sweep(plan, laneKinds.size());
  std::vector<std::uint16_t> submit, hostRanges;
  for (std::size_t l = 0; l < laneKinds.size(); ++l) {
    if (laneKinds[l] == LaneKind::HostSubmit) submit.push_back(std::uint16_t(l));
    if (l < plan.laneHasHostRanges.size() && plan.laneHasHostRanges[l]) hostRanges.push_back(std::uint16_t(l));
  }
  sweep.setSubmitLanes(submit);
  sweep.setHostRangeLanes(hostRanges);

  StartOrder<Item> order(plan.blockFirstStart);
  const auto add = [&sweep](const Item& it) { sweep.add(it); };
  const TraceView& ops = in.ops;
  for (std::size_t b = 0; b < plan.blockFirstStart.size(); ++b) {
    const std::uint64_t from = ops.begin() + b * kStartOrderBlockOps;
    const std::uint64_t to = std::min(ops.end(), from + kStartOrderBlockOps);
    for (std::uint64_t i = from; i < to; ++i) {
      const Op op = ops.at(i);
      const PlacedOp p = placeOp(op, in, laneKinds);
      if (p.role != PlacedOp::Skipped) order.push(itemOf(op, p, laneKinds));
    }
    order.endBlock(b, add);
  }
  order.finish(add);
  return sweep.finish();
}

}  // namespace pipescope
