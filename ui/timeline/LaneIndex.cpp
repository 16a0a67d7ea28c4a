#include "timeline/LaneIndex.h"

#include <algorithm>

namespace pipescope::ui {

namespace {
const LaneIndex::LaneOps kNoOps;
}

void LaneIndex::clear() { *this = LaneIndex(); }

const LaneIndex::LaneOps& LaneIndex::lane(std::uint16_t id) const {
  return id < lanes_.size() ? lanes_[id] : kNoOps;
}

void LaneIndex::update(const TraceView& view) {
  if (view.end() < indexedEnd_ || view.begin() < view_.begin()) clear();  // not a later snapshot
  const std::uint64_t oldBegin = view_.begin();
  view_ = view;
  if (!view.empty() && view.begin() > oldBegin && indexedEnd_ > oldBegin) dropBefore(view.begin());
  for (std::uint64_t i = std::max(indexedEnd_, view.begin()); i < view.end(); ++i) {
    const Op& op = view.at(i);
    if (op.end < op.start) continue;  // inconsistent imported op: nothing sensible to draw
    if (op.lane != kNoLane) insert(op.lane, i, op);
    if (op.engineLane != kNoLane && op.engineLane != op.lane) insert(op.engineLane, i, op);
    first_ = std::min(first_, op.start);
    last_ = std::max(last_, op.end);
  }
  indexedEnd_ = view.end();
}

void LaneIndex::insert(std::uint16_t laneId, std::uint64_t opIndex, const Op& op) {
  if (laneId >= lanes_.size()) lanes_.resize(std::size_t(laneId) + 1);
  LaneOps& l = lanes_[laneId];
  l.kindMask |= 1u << unsigned(op.kind);
  std::size_t pos = l.ops.size();
  // Usually appended at the end; GPU ops published late land a few places back.
  while (pos > 0 && view_.at(l.ops[pos - 1]).start > op.start) --pos;
  l.ops.insert(l.ops.begin() + std::ptrdiff_t(pos), opIndex);
  l.maxEnd.insert(l.maxEnd.begin() + std::ptrdiff_t(pos), op.end);
  for (std::size_t i = pos; i < l.ops.size(); ++i) {
    const std::int64_t own = view_.at(l.ops[i]).end;
    l.maxEnd[i] = i == 0 ? own : std::max(l.maxEnd[i - 1], own);
  }
  if (pos + 1 == l.ops.size() && pos % kBlockOps != 0) {
    // Appended inside the last block (the common case): extend its summary instead
    // of rescanning the block for every op.
    Block& b = l.blocks.back();
    b.maxEnd = std::max(b.maxEnd, op.end);
    b.maxDuration = std::max(b.maxDuration, op.end - op.start);
  } else {
    rebuildBlocks(l, pos);
  }
}

void LaneIndex::rebuildBlocks(LaneOps& l, std::size_t fromPos) const {
  const std::size_t firstBlock = fromPos / kBlockOps;
  l.blocks.resize((l.ops.size() + kBlockOps - 1) / kBlockOps);
  for (std::size_t b = firstBlock; b < l.blocks.size(); ++b) {
    Block blk{view_.at(l.ops[b * kBlockOps]).start, std::numeric_limits<std::int64_t>::min(), 0};
    const std::size_t end = std::min(l.ops.size(), (b + 1) * kBlockOps);
    for (std::size_t i = b * kBlockOps; i < end; ++i) {
      const Op& op = view_.at(l.ops[i]);
      blk.maxEnd = std::max(blk.maxEnd, op.end);
      blk.maxDuration = std::max(blk.maxDuration, op.end - op.start);
    }
    l.blocks[b] = blk;
  }
}

std::size_t LaneIndex::firstLastingAtLeast(std::uint16_t id, std::size_t from, std::size_t to,
                                           std::int64_t minDurationNs) const {
  const LaneOps& l = lane(id);
  to = std::min(to, l.ops.size());
  std::size_t i = from;
  while (i < to) {
    if (i % kBlockOps == 0 && i + kBlockOps <= to && l.blocks[i / kBlockOps].maxDuration < minDurationNs) {
      i += kBlockOps;  // the whole block is shorter
      continue;
    }
    const Op& op = view_.at(l.ops[i]);
    if (op.end - op.start >= minDurationNs) return i;
    ++i;
  }
  return to;
}

std::int64_t LaneIndex::maxEndIn(std::uint16_t id, std::size_t from, std::size_t to) const {
  const LaneOps& l = lane(id);
  to = std::min(to, l.ops.size());
  std::int64_t m = std::numeric_limits<std::int64_t>::min();
  std::size_t i = from;
  while (i < to) {
    if (i % kBlockOps == 0 && i + kBlockOps <= to) {
      m = std::max(m, l.blocks[i / kBlockOps].maxEnd);
      i += kBlockOps;
      continue;
    }
    m = std::max(m, view_.at(l.ops[i]).end);
    ++i;
  }
  return m;
}

void LaneIndex::dropBefore(std::uint64_t begin) {
  for (LaneOps& l : lanes_) {
    std::erase_if(l.ops, [begin](std::uint64_t i) { return i < begin; });
    l.maxEnd.resize(l.ops.size());
    std::int64_t running = std::numeric_limits<std::int64_t>::min();
    for (std::size_t i = 0; i < l.ops.size(); ++i) {
      running = std::max(running, view_.at(l.ops[i]).end);
      l.maxEnd[i] = running;
    }
    rebuildBlocks(l, 0);
  }
  recomputeExtent();
}

void LaneIndex::recomputeExtent() {
  first_ = std::numeric_limits<std::int64_t>::max();
  last_ = std::numeric_limits<std::int64_t>::min();
  for (const LaneOps& l : lanes_) {
    if (l.ops.empty()) continue;
    first_ = std::min(first_, view_.at(l.ops.front()).start);
    last_ = std::max(last_, l.maxEnd.back());
  }
}

std::size_t LaneIndex::firstEndingAfter(std::uint16_t id, std::int64_t t) const {
  const LaneOps& l = lane(id);
  return std::size_t(std::upper_bound(l.maxEnd.begin(), l.maxEnd.end(), t) - l.maxEnd.begin());
}

std::size_t LaneIndex::firstStartingAtOrAfter(std::uint16_t id, std::int64_t t, std::size_t from) const {
  const LaneOps& l = lane(id);
  std::size_t lo = std::min(from, l.ops.size()), hi = l.ops.size();
  if (lo < hi) {
    // Blocks after from's own: find the first whose first start is >= t.
    const std::size_t b0 = lo / kBlockOps + 1;
    std::size_t blo = b0, bhi = l.blocks.size();
    for (std::size_t step = 1; blo + step <= bhi; step *= 2) {
      if (l.blocks[blo + step - 1].firstStart >= t) {
        bhi = blo + step - 1;
        break;
      }
      blo += step;
    }
    while (blo < bhi) {
      const std::size_t mid = blo + (bhi - blo) / 2;
      if (l.blocks[mid].firstStart < t) blo = mid + 1;
      else bhi = mid;
    }
    // Block blo starts at or after t; the block before it (if searched) does not.
    if (blo > b0) lo = std::max(lo, (blo - 1) * kBlockOps + 1);
    hi = std::min(hi, blo * kBlockOps);
  }
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (view_.at(l.ops[mid]).start < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

std::size_t LaneIndex::memoryBytes() const {
  std::size_t bytes = sizeof(*this) + lanes_.capacity() * sizeof(LaneOps);
  for (const LaneOps& l : lanes_)
    bytes += l.ops.capacity() * sizeof(std::uint64_t) + l.maxEnd.capacity() * sizeof(std::int64_t) +
             l.blocks.capacity() * sizeof(Block);
  return bytes;
}

}  // namespace pipescope::ui
