#include "timeline/BatchPace.h"

#include <algorithm>

namespace pipescope::ui {

namespace {
int stageSlot(OpKind k) {
  switch (k) {
    case OpKind::Preprocess: return 0;
    case OpKind::CopyH2D: return 1;
    case OpKind::Kernel: return 2;
    case OpKind::CopyD2H: return 3;
    case OpKind::Postprocess: return 4;
    default: return -1;
  }
}
}  // namespace

void BatchPace::clear() { *this = BatchPace(); }

void BatchPace::update(const TraceView& view) {
  for (std::uint64_t i = std::max(seenEnd_, view.begin()); i < view.end(); ++i) {
    const Op& op = view.at(i);
    if (op.batch < 0) continue;
    if (const int slot = stageSlot(op.kind); slot >= 0) {
      stage_[slot].sum += double(op.duration());
      ++stage_[slot].count;
    }
    if (starts_.empty()) firstBatch_ = lastBatch_ = op.batch;
    firstBatch_ = std::min(firstBatch_, op.batch);
    lastBatch_ = std::max(lastBatch_, op.batch);
    if (op.batch + kPeriodBatches + 1 <= lastBatch_) continue;  // older than the averaged window
    auto [it, inserted] = starts_.emplace(op.batch, op.start);
    if (!inserted) it->second = std::min(it->second, op.start);
  }
  seenEnd_ = std::max(seenEnd_, view.end());
  while (!starts_.empty() && starts_.begin()->first + kPeriodBatches + 1 <= lastBatch_) starts_.erase(starts_.begin());
}

std::optional<double> BatchPace::periodNs() const {
  // The newest batch may still be starting (its first op not yet published): use
  // the span between the oldest kept batch and the one before the newest.
  if (starts_.size() < 3) {
    if (starts_.size() == 2) {
      const double d = double(std::prev(starts_.end())->second - starts_.begin()->second) /
                       double(std::prev(starts_.end())->first - starts_.begin()->first);
      if (d > 0) return d;
    }
    return std::nullopt;
  }
  const auto newest = std::prev(starts_.end(), 2), oldest = starts_.begin();
  const double d = double(newest->second - oldest->second) / double(newest->first - oldest->first);
  if (d <= 0) return std::nullopt;
  return d;
}

std::optional<double> BatchPace::shortestStageNs() const {
  std::optional<double> best;
  for (const Mean& m : stage_) {
    if (m.count == 0) continue;
    const double mean = m.sum / double(m.count);
    if (mean > 0 && (!best || mean < *best)) best = mean;
  }
  return best;
}

}  // namespace pipescope::ui
