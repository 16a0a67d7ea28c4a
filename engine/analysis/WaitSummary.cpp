#include "analysis/WaitSummary.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/AnalysisFormat.h"

namespace pipescope {

std::string_view toString(BatchRelation r) {
  switch (r) {
    case BatchRelation::SameBatch: return "of the same batch";
    case BatchRelation::PreviousBatch: return "of the previous batch";
    case BatchRelation::EarlierBatch: return "of an earlier batch";
    case BatchRelation::LaterBatch: return "of a later batch";
    case BatchRelation::Unknown: return "";
  }
  return "";
}

double KindWaits::totalWaitNs() const {
  double s = 0;
  for (double w : waitNs) s += w;
  return s;
}

double KindWaits::share(WaitCause cause) const {
  const double all = totalWaitNs() + execNs;
  return all > 0 ? waitNs[std::size_t(cause)] / all : 0.0;
}

double WaitSummary::totalWaitNs() const {
  double s = 0;
  for (double w : waitNs) s += w;
  return s;
}

double WaitSummary::share(WaitCause cause) const {
  const double all = totalWaitNs() + execNs;
  return all > 0 ? waitNs[std::size_t(cause)] / all : 0.0;
}

const KindWaits* WaitSummary::find(OpKind kind) const {
  for (const auto& k : kinds)
    if (k.kind == kind) return &k;
  return nullptr;
}

namespace {

BatchRelation relation(const Op& waiting, const Op& blocker) {
  if (waiting.batch == kNoBatch || blocker.batch == kNoBatch) return BatchRelation::Unknown;
  const std::int64_t d = std::int64_t(waiting.batch) - blocker.batch;
  if (d == 0) return BatchRelation::SameBatch;
  if (d == 1) return BatchRelation::PreviousBatch;
  return d > 1 ? BatchRelation::EarlierBatch : BatchRelation::LaterBatch;
}

int kindSlot(OpKind k) {
  switch (k) {
    case OpKind::CopyH2D: return 0;
    case OpKind::Kernel: return 1;
    case OpKind::CopyD2H: return 2;
    case OpKind::Memset: return 3;
    default: return -1;
  }
}
constexpr OpKind kSlotKinds[4] = {OpKind::CopyH2D, OpKind::Kernel, OpKind::CopyD2H, OpKind::Memset};

std::string kindLabel(OpKind k) {
  switch (k) {
    case OpKind::CopyH2D: return "H2D";
    case OpKind::CopyD2H: return "D2H";
    case OpKind::Kernel: return "kernel";
    default: return std::string(toString(k));
  }
}

std::string blockerKindLabel(OpKind k) {
  switch (k) {
    case OpKind::Preprocess: return "preprocessing";
    case OpKind::Postprocess: return "postprocessing";
    default: return kindLabel(k);
  }
}

}  // namespace

WaitSummaryBuilder::WaitSummaryBuilder(const TraceView& ops, const std::vector<Lane>& lanes) : ops_(ops), lanes_(lanes) {
  for (int i = 0; i < 4; ++i) slots_[i].kind = kSlotKinds[i];
  ops.forEach([&](const Op& op) {
    const int slot = kindSlot(op.kind);
    if (slot < 0 || op.end < op.start) return;
    present_[slot] = true;
    ++slots_[slot].ops;
    slots_[slot].execNs += double(op.duration());
    if (op.engineLane < lanes.size()) engineUse_[slot][op.engineLane] += double(op.duration());
  });
}

void WaitSummaryBuilder::add(const WaitAnalysis& analysis) {
  // Segment lengths are whole nanoseconds, so these sums are exact and the order in
  // which analyses are added does not change them.
  for (const WaitSegment& s : analysis.segments()) {
    const std::uint64_t gi = analysis.globalOp(s);
    if (gi < ops_.begin() || gi >= ops_.end()) continue;
    const Op& op = ops_.at(gi);
    const int slot = kindSlot(op.kind);
    if (slot < 0) continue;
    slots_[slot].waitNs[std::size_t(s.cause)] += double(s.length());
    if (auto b = analysis.globalBlocker(s); b && *b >= ops_.begin() && *b < ops_.end()) {
      const Op& blocker = ops_.at(*b);
      behind_[{slot, int(s.cause), int(blocker.kind), int(relation(op, blocker))}] += double(s.length());
    }
  }
}

WaitSummary WaitSummaryBuilder::finish() const {
  WaitSummary out;
  KindWaits slots[4] = {slots_[0], slots_[1], slots_[2], slots_[3]};
  for (const auto& [key, ns] : behind_) {
    const auto [slot, cause, kind, rel] = key;
    DominantBlocker& d = slots[slot].blockers[std::size_t(cause)];
    if (ns > d.ns) d = {true, OpKind(kind), BatchRelation(rel), ns};
  }
  for (int i = 0; i < 4; ++i) {
    if (!present_[i]) continue;
    if (!engineUse_[i].empty()) {
      const auto best = std::max_element(engineUse_[i].begin(), engineUse_[i].end(),
                                         [](const auto& a, const auto& b) { return a.second < b.second; });
      slots[i].engineName = lanes_[best->first].name;
    }
    out.execNs += slots[i].execNs;
    for (int c = 0; c < kWaitCauseCount; ++c) out.waitNs[std::size_t(c)] += slots[i].waitNs[std::size_t(c)];
    out.kinds.push_back(slots[i]);
  }
  return out;
}

WaitSummary summarizeWaits(const WaitAnalysis& analysis, const TraceView& ops, const std::vector<Lane>& lanes) {
  WaitSummaryBuilder builder(ops, lanes);
  builder.add(analysis);
  return builder.finish();
}

std::vector<std::string> describeSummary(const WaitSummary& summary, double minShare, int maxSentences) {
  struct Item {
    double share;
    std::string text;
  };
  std::vector<Item> items;
  for (const KindWaits& k : summary.kinds) {
    for (int c = 0; c < kWaitCauseCount; ++c) {
      const auto cause = WaitCause(c);
      const double share = k.share(cause);
      if (share < minShare || share <= 0) continue;
      std::string what;
      switch (cause) {
        case WaitCause::StreamOrder: what = "was queued behind earlier work in its stream"; break;
        case WaitCause::EngineBusy:
          what = "waited on " + (k.engineName.empty() ? std::string("a busy engine") : "the " + k.engineName);
          break;
        case WaitCause::DeviceLatency:
          what = "waited for the device to start it (launch latency, hardware queue)";
          break;
        case WaitCause::HostSubmit: what = "waited for the host to submit it (API calls)"; break;
        case WaitCause::HostCpuWork: what = "waited while the host ran CPU pre/postprocessing"; break;
        case WaitCause::PageableStaging: what = "waited while the host was held by pageable copies"; break;
        case WaitCause::HostSync: what = "waited while the host sat in a synchronisation"; break;
        case WaitCause::PeerActivation: what = "waited for a peer's activation (the copy from the previous stage)"; break;
        case WaitCause::CollectiveWait: what = "waited for the collective (the all-reduce before it)"; break;
      }
      const DominantBlocker& b = k.blockers[std::size_t(c)];
      std::string mostly;
      if (b.known && b.ns >= 0.5 * k.waitNs[std::size_t(c)] && cause != WaitCause::HostSubmit) {
        const std::string rel(toString(b.relation));
        mostly = ", mostly behind " + blockerKindLabel(b.kind) + (rel.empty() ? "" : " " + rel);
        if (cause == WaitCause::HostSync || cause == WaitCause::PageableStaging)
          mostly = ", mostly for " + blockerKindLabel(b.kind) + (rel.empty() ? "" : " " + rel);
        if (cause == WaitCause::HostCpuWork)
          mostly = ", mostly " + blockerKindLabel(b.kind) + (rel.empty() ? "" : " " + rel);
      }
      items.push_back({share, formatPercent(share) + " of " + kindLabel(k.kind) + " time " + what + mostly + "."});
    }
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.share > b.share; });
  std::vector<std::string> out;
  for (const auto& i : items) {
    if (int(out.size()) >= maxSentences) break;
    out.push_back(i.text);
  }
  if (out.empty() && !summary.kinds.empty())
    out.push_back("GPU ops barely waited: less than " + formatPercent(minShare) +
                  " of any kind's time went to a single cause of waiting.");
  return out;
}

}  // namespace pipescope
