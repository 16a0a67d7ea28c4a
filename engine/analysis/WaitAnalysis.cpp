#include "analysis/WaitAnalysis.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "analysis/AnalysisFormat.h"

namespace pipescope {

std::span<const WaitSegment> WaitAnalysis::segmentsOf(std::uint64_t globalIndex) const {
  if (!covers(globalIndex)) return {};
  const std::uint64_t rel = globalIndex - firstOp_;
  const std::uint8_t n = opSegCount_[rel];
  if (n == 0) return {};
  return {segments_.data() + opSegFirst_[rel], n};
}

std::span<const WaitSegment> WaitAnalysis::laneSegments(std::uint16_t lane) const {
  if (std::size_t(lane) + 1 >= laneFirst_.size()) return {};
  return {segments_.data() + laneFirst_[lane], laneFirst_[lane + 1] - laneFirst_[lane]};
}

std::int64_t WaitAnalysis::waitNs(std::uint64_t globalIndex) const {
  std::int64_t sum = 0;
  for (const auto& s : segmentsOf(globalIndex)) sum += s.length();
  return sum;
}

std::int64_t WaitAnalysis::waitNs(std::uint64_t globalIndex, WaitCause cause) const {
  std::int64_t sum = 0;
  for (const auto& s : segmentsOf(globalIndex))
    if (s.cause == cause) sum += s.length();
  return sum;
}

std::optional<std::uint64_t> WaitAnalysis::globalBlocker(const WaitSegment& s) const {
  if (s.blocker == WaitSegment::kNoOp) return std::nullopt;
  return firstOp_ + s.blocker;
}

std::size_t WaitAnalysis::memoryBytes() const {
  return segments_.capacity() * sizeof(WaitSegment) + laneFirst_.capacity() * sizeof(std::uint32_t) +
         opSegFirst_.capacity() * sizeof(std::uint32_t) + opSegCount_.capacity();
}

namespace {

using Index = std::uint32_t;
constexpr Index kNone = WaitSegment::kNoOp;

// The ops an analysis attributes among: a part of a view, indexed from 0.
class OpWindow {
 public:
  OpWindow(const TraceView& view, std::uint64_t begin, std::uint64_t end) : view_(view), begin_(begin), end_(end) {}
  std::uint64_t begin() const { return begin_; }
  std::uint64_t size() const { return end_ - begin_; }
  Op operator[](std::uint64_t i) const { return view_.at(begin_ + i); }

 private:
  const TraceView& view_;
  std::uint64_t begin_, end_;
};

// Ops of one kind of resource, sorted by start, with the running maximum of their
// ends: the ops overlapping [a, b) are found by binary search even when they overlap
// each other (concurrent kernels, several CPU workers).
struct Timeline {
  std::vector<Index> ops;
  std::vector<std::int64_t> starts, ends, maxEnd;  // copies: the sweeps never touch the ops

  void sortAndIndex(const OpWindow& view) {
    auto startOf = [&](Index i) { return view[i].start; };
    if (!std::is_sorted(ops.begin(), ops.end(), [&](Index a, Index b) { return startOf(a) < startOf(b); }))
      std::stable_sort(ops.begin(), ops.end(), [&](Index a, Index b) { return startOf(a) < startOf(b); });
    starts.resize(ops.size());
    ends.resize(ops.size());
    maxEnd.resize(ops.size());
    std::int64_t m = std::numeric_limits<std::int64_t>::min();
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const Op& op = view[ops[i]];
      starts[i] = op.start;
      ends[i] = op.end;
      m = std::max(m, op.end);
      maxEnd[i] = m;
    }
  }

  // Calls piece(s, e, pos) for the parts of [a, b) covered by these ops (each part
  // given to the earliest-starting op covering it; pos indexes `ops`) and gap(s, e)
  // for the rest, in time order. `skip` is excluded (the waiting op itself).
  template <typename Piece, typename Gap>
  void cover(std::int64_t a, std::int64_t b, Index skip, Piece&& piece, Gap&& gap) const {
    if (a >= b) return;
    std::size_t i = std::size_t(std::upper_bound(maxEnd.begin(), maxEnd.end(), a) - maxEnd.begin());
    std::int64_t t = a;
    for (; i < ops.size() && starts[i] < b && t < b; ++i) {
      if (ends[i] <= t || ops[i] == skip) continue;
      const std::int64_t s = std::max(t, starts[i]);
      const std::int64_t e = std::min(b, ends[i]);
      if (s > t) gap(t, s);
      if (e > s) piece(s, e, i);
      t = std::max(t, e);
    }
    if (t < b) gap(t, b);
  }
};

}  // namespace

// Builds a WaitAnalysis; a class so the friend declaration can reach the storage.
class WaitAnalyzer {
 public:
  WaitAnalyzer(const OpWindow& view, const std::vector<Lane>& lanes) : view_(view), lanes_(lanes) {}

  // Keeps the segments of the ops [keepFrom, keepTo) (positions in the view).
  WaitAnalysis run(std::uint64_t keepFrom, std::uint64_t keepTo) {
    WaitAnalysis out;
    out.firstOp_ = view_.begin();
    const std::size_t n = std::size_t(view_.size());
    out.keepTo_ = std::min<std::uint64_t>(keepTo, n);
    out.keepFrom_ = std::min(keepFrom, out.keepTo_);
    out.opSegFirst_.assign(n, 0);
    out.opSegCount_.assign(n, 0);
    if (n == 0 || n >= std::size_t(kNone)) {
      out.laneFirst_.assign(lanes_.size() + 1, 0);
      return out;
    }
    classify();
    resolveSyncTargets();
    // Groups are stream lanes first (ids 0..lanes-1), then streams without a lane.
    std::vector<std::vector<Segment>> perGroup(groups_.size());
    for (std::size_t g = 0; g < groups_.size(); ++g) attributeStream(groups_[g], perGroup[g]);

    const auto kept = [&](const Segment& s) { return s.seg.op >= out.keepFrom_ && s.seg.op < out.keepTo_; };
    std::size_t total = 0;
    for (const auto& v : perGroup) total += std::size_t(std::count_if(v.begin(), v.end(), kept));
    out.segments_.reserve(total);
    out.laneFirst_.assign(lanes_.size() + 1, 0);
    for (std::size_t g = 0; g < perGroup.size(); ++g) {
      if (g < lanes_.size()) out.laneFirst_[g] = Index(out.segments_.size());
      for (const Segment& s : perGroup[g]) {
        if (!kept(s)) continue;
        if (out.opSegCount_[s.seg.op] == 0) out.opSegFirst_[s.seg.op] = Index(out.segments_.size());
        ++out.opSegCount_[s.seg.op];
        out.segments_.push_back(s.seg);
      }
      if (g < lanes_.size()) {
        // Fill the following lane starts so empty lanes get empty ranges.
        for (std::size_t l = g + 1; l <= lanes_.size(); ++l) out.laneFirst_[l] = Index(out.segments_.size());
      }
    }
    return out;
  }

 private:
  struct Segment {
    WaitSegment seg;
  };

  LaneKind laneKind(std::uint16_t lane) const { return lane < lanes_.size() ? lanes_[lane].kind : LaneKind::HostOther; }

  void classify() {
    const std::size_t n = std::size_t(view_.size());
    groups_.assign(lanes_.size(), {});
    std::unordered_map<int, std::size_t> streamGroup;  // streams without a stream lane
    std::unordered_map<std::uint16_t, std::size_t> engineIndex;
    bool haveSubmitLane = false;
    for (const auto& l : lanes_) haveSubmitLane = haveSubmitLane || l.kind == LaneKind::HostSubmit;
    for (std::size_t i = 0; i < n; ++i) {
      const Op& op = view_[i];
      if (op.end < op.start) continue;  // inconsistent import: no wait to explain
      if (isGpuKind(op.kind)) {
        std::size_t g;
        if (op.lane < lanes_.size() && laneKind(op.lane) == LaneKind::Stream) {
          g = op.lane;
        } else {
          auto [it, inserted] = streamGroup.try_emplace(int(op.stream), groups_.size());
          if (inserted) groups_.emplace_back();
          g = it->second;
        }
        groups_[g].ops.push_back(Index(i));
        // The engine: its engine lane, else one engine per direction / compute.
        std::uint16_t key;
        if (op.engineLane < lanes_.size() && isEngineLane(laneKind(op.engineLane)))
          key = op.engineLane;
        else
          key = std::uint16_t(0xFFF0 + (op.kind == OpKind::CopyH2D ? 0 : op.kind == OpKind::CopyD2H ? 1 : 2));
        auto [it, inserted] = engineIndex.try_emplace(key, engines_.size());
        if (inserted) engines_.emplace_back();
        engines_[it->second].ops.push_back(Index(i));
        if (engineOf_.size() < n) engineOf_.assign(n, 0);
        engineOf_[i] = Index(it->second);
        byEnd_.emplace_back(op.end, Index(i));
        if (op.correlation != 0) byCorrelation_.emplace(op.correlation, Index(i));
        if (isCopyKind(op.kind) && (op.flags & kOpPageable)) pageable_.ops.push_back(Index(i));
        if (isCommunicationKind(op.kind) && op.lane < lanes_.size() && laneKind(op.lane) == LaneKind::Stream)
          comm_.emplace_back(op.end, Index(i));
        continue;
      }
      const bool hostLane = op.lane < lanes_.size() ? isHostLane(laneKind(op.lane)) : true;
      if (!hostLane) continue;
      if (op.kind == OpKind::HostSync && (!haveSubmitLane || laneKind(op.lane) == LaneKind::HostSubmit)) {
        syncs_.ops.push_back(Index(i));
      } else if (op.kind == OpKind::Preprocess || op.kind == OpKind::Postprocess) {
        cpu_.ops.push_back(Index(i));
      } else if (op.kind == OpKind::ApiCall) {
        apis_.ops.push_back(Index(i));
      }
    }
    for (auto& g : groups_) {
      auto startOf = [&](Index a) { return view_[a].start; };
      if (!std::is_sorted(g.ops.begin(), g.ops.end(), [&](Index a, Index b) { return startOf(a) < startOf(b); }))
        std::stable_sort(g.ops.begin(), g.ops.end(), [&](Index a, Index b) { return startOf(a) < startOf(b); });
    }
    for (auto& e : engines_) e.sortAndIndex(view_);
    syncs_.sortAndIndex(view_);
    cpu_.sortAndIndex(view_);
    apis_.sortAndIndex(view_);
    pageable_.sortAndIndex(view_);
    // (end, index) pairs sort without touching the ops again.
    if (!std::is_sorted(byEnd_.begin(), byEnd_.end())) std::sort(byEnd_.begin(), byEnd_.end());
    if (!std::is_sorted(comm_.begin(), comm_.end())) std::sort(comm_.begin(), comm_.end());
  }

  // What each host synchronisation waited for: the GPU op named by the API call just
  // before it (correlation), else a pageable copy running during it, else the GPU op
  // that finished last before the host woke up.
  void resolveSyncTargets() {
    syncTarget_.assign(syncs_.ops.size(), kNone);
    syncPageable_.assign(syncs_.ops.size(), 0);
    for (std::size_t s = 0; s < syncs_.ops.size(); ++s) {
      const Op& sync = view_[syncs_.ops[s]];
      Index target = kNone;
      // A waiting call that launched a GPU op itself (an imported pageable or blocking
      // copy's cudaMemcpy) waited for that op.
      if (sync.correlation != 0) {
        auto own = byCorrelation_.find(sync.correlation);
        if (own != byCorrelation_.end()) target = own->second;
      }
      // The API call on the same lane that ended last at or before the sync began.
      auto it = std::upper_bound(apis_.starts.begin(), apis_.starts.end(), sync.start);
      for (int look = 0; target == kNone && it != apis_.starts.begin() && look < 4; ++look) {
        --it;
        const Op& api = view_[apis_.ops[std::size_t(it - apis_.starts.begin())]];
        if (api.lane != sync.lane || api.end > sync.start) continue;
        if (api.correlation != 0) {
          auto c = byCorrelation_.find(api.correlation);
          if (c != byCorrelation_.end() && view_[c->second].start < sync.end) target = c->second;
        }
        break;
      }
      if (target == kNone) {
        pageable_.cover(
            sync.start, sync.end, kNone,
            [&](std::int64_t, std::int64_t, std::size_t pos) {
              const Index op = pageable_.ops[pos];
              if (target == kNone && view_[op].submit <= sync.start) target = op;
            },
            [](std::int64_t, std::int64_t) {});
      }
      if (target == kNone) {
        auto e = std::upper_bound(byEnd_.begin(), byEnd_.end(), std::make_pair(sync.end, kNone));
        if (e != byEnd_.begin()) {
          const Index cand = (e - 1)->second;
          if (view_[cand].end > sync.start) target = cand;
        }
      }
      syncTarget_[s] = target;
      syncPageable_[s] = target != kNone && isCopyKind(view_[target].kind) && (view_[target].flags & kOpPageable);
    }
  }

  void emit(std::vector<Segment>& out, Index op, std::int64_t a, std::int64_t b, WaitCause cause, Index blocker,
            bool underStream = false) {
    if (b <= a) return;
    const bool sameOp = !out.empty() && out.back().seg.op == op;
    if (!sameOp) segCount_ = 0;
    if (sameOp) {
      WaitSegment& last = out.back().seg;
      // Adjacent pieces with the same meaning become one (API calls in a row), and an
      // op never holds more segments than its counter can count.
      const bool same = last.end == a && last.cause == cause && last.underStream == underStream &&
                        (last.blocker == blocker || cause == WaitCause::HostSubmit);
      if (same || segCount_ >= 255) {
        last.end = b;
        return;
      }
    }
    ++segCount_;
    out.push_back({WaitSegment{a, b, op, cause == WaitCause::HostSubmit ? kNone : blocker, cause, underStream}});
  }

  // [a, b): the stream sat idle because the host had not submitted the op yet.
  void attributeHostGap(std::vector<Segment>& out, Index op, std::int64_t a, std::int64_t b) {
    syncs_.cover(
        a, b, kNone,
        [&](std::int64_t s, std::int64_t e, std::size_t pos) {
          emit(out, op, s, e, syncPageable_[pos] ? WaitCause::PageableStaging : WaitCause::HostSync, syncTarget_[pos]);
        },
        [&](std::int64_t s, std::int64_t e) {
          cpu_.cover(
              s, e, kNone,
              [&](std::int64_t cs, std::int64_t ce, std::size_t pos) {
                emit(out, op, cs, ce, WaitCause::HostCpuWork, cpu_.ops[pos]);
              },
              [&](std::int64_t gs, std::int64_t ge) { emit(out, op, gs, ge, WaitCause::HostSubmit, kNone); });
        });
  }

  int deviceOf(std::uint16_t lane) const { return lane < lanes_.size() ? lanes_[lane].device : kSharedLane; }

  // The communication op an op waited for between `from` and `ready`: the latest one
  // ending in (from, ready] that it could depend on (a peer copy into its GPU, or a
  // collective on its GPU).
  std::pair<WaitCause, Index> crossStreamWait(Index i, std::int64_t from, std::int64_t ready) const {
    if (comm_.empty() || ready <= from) return {WaitCause::StreamOrder, kNone};
    const int device = deviceOf(view_[i].lane);
    auto it = std::upper_bound(comm_.begin(), comm_.end(), std::make_pair(ready, kNone));
    while (it != comm_.begin()) {
      --it;
      if (it->first <= from) break;
      const Op& c = view_[it->second];
      if (c.kind == OpKind::PeerCopy) {
        const bool intoIt = c.engineLane < lanes_.size() && lanes_[c.engineLane].kind == LaneKind::PeerLink
                                ? lanes_[c.engineLane].index == device
                                : deviceOf(c.lane) != device;
        if (intoIt) return {WaitCause::PeerActivation, it->second};
      } else if (deviceOf(c.lane) == device && c.lane != view_[i].lane) {
        return {WaitCause::CollectiveWait, it->second};
      }
    }
    return {WaitCause::StreamOrder, kNone};
  }

  void attributeStream(const Timeline& group, std::vector<Segment>& out) {
    Index prev = kNone;
    for (Index i : group.ops) {
      const Op& op = view_[i];
      if (op.start < op.submit || op.end < op.start) {  // inconsistent import: leave it unexplained
        prev = i;
        continue;
      }
      const std::int64_t prevEnd = prev == kNone ? std::numeric_limits<std::int64_t>::min() : view_[prev].end;
      // The stream reached the op at `ready`; imports without ready times carry
      // ready == submit, so the end of the previous op in the stream stands in.
      std::int64_t ready = (op.ready > op.submit && op.ready <= op.start) ? op.ready : op.submit;
      if (prev != kNone) ready = std::max(ready, std::min(prevEnd, op.start));
      ready = std::clamp(ready, op.submit, op.start);

      if (prev != kNone && prevEnd < op.submit) attributeHostGap(out, i, prevEnd, op.submit);
      if (ready > op.submit) {
        const std::int64_t split = std::clamp(prevEnd, op.submit, ready);
        emit(out, i, op.submit, split, WaitCause::StreamOrder, prev, true);
        // Its stream was idle, yet the op was not ready: it waited on another stream's
        // work (an event), which on several GPUs is communication.
        const auto [cause, blocker] = crossStreamWait(i, split, ready);
        if (blocker != kNone)
          emit(out, i, split, ready, cause, blocker);
        else
          emit(out, i, split, ready, WaitCause::StreamOrder, prev, false);
      }
      engines_[engineOf_[i]].cover(
          ready, op.start, i,
          [&](std::int64_t s, std::int64_t e, std::size_t pos) {
            emit(out, i, s, e, WaitCause::EngineBusy, engines_[engineOf_[i]].ops[pos]);
          },
          [&](std::int64_t s, std::int64_t e) { emit(out, i, s, e, WaitCause::DeviceLatency, kNone); });
      prev = i;
    }
  }

  const OpWindow view_;
  const std::vector<Lane>& lanes_;
  std::vector<Timeline> groups_;  // stream groups (only .ops used)
  std::vector<Timeline> engines_;
  std::vector<Index> engineOf_;
  Timeline syncs_, cpu_, apis_, pageable_;
  std::vector<Index> syncTarget_;
  std::vector<std::uint8_t> syncPageable_;             // the sync waited for a pageable copy
  std::vector<std::pair<std::int64_t, Index>> byEnd_;  // GPU ops by end
  std::vector<std::pair<std::int64_t, Index>> comm_;   // peer copies and collectives on streams, by end
  std::unordered_multimap<std::uint32_t, Index> byCorrelation_;
  int segCount_ = 0;
};

WaitAnalysis analyzeWaits(const TraceView& ops, const std::vector<Lane>& lanes) {
  return WaitAnalyzer(OpWindow(ops, ops.begin(), ops.end()), lanes).run(0, ops.size());
}

WaitAnalysis analyzeWaits(const TraceView& ops, const std::vector<Lane>& lanes, OpRange analysed, OpRange kept) {
  const std::uint64_t from = std::clamp(analysed.begin, ops.begin(), ops.end());
  const std::uint64_t to = std::clamp(analysed.end, from, ops.end());
  const std::uint64_t keepFrom = std::clamp(kept.begin, from, to);
  const std::uint64_t keepTo = std::clamp(kept.end, keepFrom, to);
  return WaitAnalyzer(OpWindow(ops, from, to), lanes).run(keepFrom - from, keepTo - from);
}

WaitAnalysis analyzeWaits(const Trace& trace) { return analyzeWaits(trace.ops().snapshot(), trace.lanes()); }

std::string describeOp(const Op& op, const std::vector<std::string>& names) {
  std::string s = std::string(op.kind == OpKind::CopyH2D   ? "H2D"
                              : op.kind == OpKind::CopyD2H ? "D2H"
                                                           : toString(op.kind));
  if (op.name != 0 && op.name < names.size() && !names[op.name].empty()) s += " '" + names[op.name] + "'";
  if (op.batch != kNoBatch) s += " of batch " + std::to_string(op.batch);
  if (op.stream != kNoStream) s += " (stream " + std::to_string(op.stream) + ")";
  return s;
}

std::string describeSegment(const WaitAnalysis& analysis, const TraceView& ops, const std::vector<Lane>& lanes,
                            const WaitSegment& segment, const std::vector<std::string>& names) {
  const auto blocker = analysis.globalBlocker(segment);
  const bool haveBlocker = blocker && *blocker >= ops.begin() && *blocker < ops.end();
  const Op& self = ops.at(analysis.globalOp(segment));
  auto engineName = [&]() -> std::string {
    const std::uint16_t lane = haveBlocker ? ops.at(*blocker).engineLane : self.engineLane;
    if (lane < lanes.size()) return "the " + lanes[lane].name;
    return self.kind == OpKind::Kernel ? "the compute engine" : "its copy engine";
  };
  switch (segment.cause) {
    case WaitCause::StreamOrder:
      return haveBlocker ? "behind " + describeOp(ops.at(*blocker), names) + " in its stream"
                         : "behind earlier work in its stream";
    case WaitCause::EngineBusy:
      return "behind " + engineName() + (haveBlocker ? ", busy with " + describeOp(ops.at(*blocker), names) : ", busy");
    case WaitCause::DeviceLatency: return "for the device to start it (launch latency or a blocked hardware queue)";
    case WaitCause::HostSubmit: return "for the host to submit it (API calls and host overhead)";
    case WaitCause::HostCpuWork:
      return "while the host ran CPU work" +
             (haveBlocker ? " (" + describeOp(ops.at(*blocker), names) + ")" : std::string());
    case WaitCause::PageableStaging:
      return "while the host was held by a pageable copy" +
             (haveBlocker ? " (" + describeOp(ops.at(*blocker), names) + ")" : std::string());
    case WaitCause::HostSync:
      return "while the host waited in a synchronisation" +
             (haveBlocker ? " (for " + describeOp(ops.at(*blocker), names) + ")" : std::string());
    case WaitCause::PeerActivation:
      return "for a peer's activation" +
             (haveBlocker ? ": " + describeOp(ops.at(*blocker), names) +
                                (ops.at(*blocker).engineLane < lanes.size()
                                     ? " over the " + lanes[ops.at(*blocker).engineLane].name
                                     : std::string())
                          : std::string());
    case WaitCause::CollectiveWait:
      return "for the collective" + (haveBlocker ? " (" + describeOp(ops.at(*blocker), names) + ")" : std::string());
  }
  return {};
}

std::string describeWait(const WaitAnalysis& analysis, const TraceView& ops, const std::vector<Lane>& lanes,
                         std::uint64_t globalIndex, const std::vector<std::string>& names) {
  const auto segs = analysis.segmentsOf(globalIndex);
  if (segs.empty() || globalIndex < ops.begin() || globalIndex >= ops.end()) return {};
  std::int64_t total = 0;
  for (const auto& s : segs) total += s.length();
  if (total <= 0) return {};
  // Largest parts first; tiny slivers are left out of a tooltip.
  std::vector<const WaitSegment*> order;
  for (const auto& s : segs) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->length() > b->length(); });
  std::string text = "waited " + formatNs(double(total));
  if (order.size() == 1) return text + " " + describeSegment(analysis, ops, lanes, *order[0], names);
  text += ":";
  int shown = 0;
  for (const WaitSegment* s : order) {
    if (shown == 3 || (shown > 0 && double(s->length()) < 0.02 * double(total))) break;
    text += std::string(shown ? ";" : "") + " " + formatNs(double(s->length())) + " " +
            describeSegment(analysis, ops, lanes, *s, names);
    ++shown;
  }
  return text;
}

}  // namespace pipescope
