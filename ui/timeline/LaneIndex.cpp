#include "timeline/LaneIndex.h"

#include <algorithm>
#include <stdexcept>

namespace pipescope::ui {

namespace {
const LaneIndex::LaneOps kNoOps;
constexpr std::int64_t kMinNs = std::numeric_limits<std::int64_t>::min();

/// v - base (v >= base) as a 32-bit offset, or kFar when it does not fit.
std::uint32_t offsetFrom(std::int64_t v, std::int64_t base) {
  const std::uint64_t d = std::uint64_t(v) - std::uint64_t(base);
  return d < LaneIndex::kFar ? std::uint32_t(d) : LaneIndex::kFar;
}

void sample(LaneIndex::Block& b, std::size_t posInBlock, std::int64_t start) {
  if (posInBlock % LaneIndex::kSampleStep == 0 && posInBlock > 0)
    b.starts[posInBlock / LaneIndex::kSampleStep - 1] = offsetFrom(start, b.firstStart);
}
}  // namespace

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
    const Op op = view.at(i);
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
  if (l.empty()) l.base_ = opIndex;
  // Ops come in index order and the base is at most the lane's first index, so only
  // a lane spanning 4 G ops of one view could overflow (and no view holds that many).
  if (opIndex - l.base_ > 0xFFFFFFFFu) throw std::length_error("timeline index: more than 4 G ops in one view");
  std::size_t pos = l.size();
  // Usually appended at the end; GPU ops published late land a few places back.
  while (pos > 0 && view_.at(l.op(pos - 1)).start > op.start) --pos;
  const auto offset = std::uint32_t(opIndex - l.base_);
  if (pos == l.size() && pos % kBlockOps != 0) {
    // Appended inside the last block (the common case): extend its summary instead
    // of rescanning the block for every op.
    l.ops_.push_back(offset);
    Block& b = l.blocks_.back();
    b.maxEnd = std::max(b.maxEnd, op.end);
    b.maxDuration = std::max(b.maxDuration, offsetFrom(op.end, op.start));
    sample(b, pos % kBlockOps, op.start);
    l.maxEndUp_.push_back(offsetFrom(std::max(b.endsBefore, b.maxEnd), LaneOps::anchor(b)));
    return;
  }
  l.ops_.insert(pos, offset);
  l.maxEndUp_.push_back(0);  // rewritten from pos on below
  rebuildBlocks(l, pos);
}

void LaneIndex::rebuildBlocks(LaneOps& l, std::size_t fromPos) const {
  const std::size_t firstBlock = fromPos / kBlockOps;
  l.blocks_.resize((l.size() + kBlockOps - 1) / kBlockOps);
  std::int64_t running = kMinNs;
  if (firstBlock > 0) {
    const Block& prev = l.blocks_[firstBlock - 1];
    running = std::max(prev.endsBefore, prev.maxEnd);
  }
  for (std::size_t b = firstBlock; b < l.blocks_.size(); ++b) {
    Block blk;
    blk.firstStart = view_.at(l.op(b * kBlockOps)).start;
    blk.maxEnd = kMinNs;
    blk.endsBefore = running;
    std::fill(std::begin(blk.starts), std::end(blk.starts), kFar);
    const std::int64_t anchor = LaneOps::anchor(blk);
    const std::size_t end = std::min(l.size(), (b + 1) * kBlockOps);
    for (std::size_t i = b * kBlockOps; i < end; ++i) {
      const Op op = view_.at(l.op(i));
      blk.maxEnd = std::max(blk.maxEnd, op.end);
      blk.maxDuration = std::max(blk.maxDuration, offsetFrom(op.end, op.start));
      sample(blk, i - b * kBlockOps, op.start);
      running = std::max(running, op.end);
      l.maxEndUp_[i] = offsetFrom(running, anchor);
    }
    l.blocks_[b] = blk;
  }
}

std::int64_t LaneIndex::maxEndUpTo(std::uint16_t id, std::size_t pos) const {
  const LaneOps& l = lane(id);
  const std::size_t b = pos / kBlockOps;
  const Block& blk = l.blocks_[b];
  const std::uint32_t up = l.maxEndUp_[pos];
  if (up != kFar) return std::int64_t(std::uint64_t(LaneOps::anchor(blk)) + up);
  // After an op of 4.3 s or more in this block: from the block's ops themselves.
  std::int64_t m = blk.endsBefore;
  for (std::size_t i = b * kBlockOps; i <= pos; ++i) m = std::max(m, view_.at(l.op(i)).end);
  return m;
}

std::size_t LaneIndex::firstLastingAtLeast(std::uint16_t id, std::size_t from, std::size_t to,
                                           std::int64_t minDurationNs) const {
  const LaneOps& l = lane(id);
  to = std::min(to, l.size());
  std::size_t i = from;
  while (i < to) {
    const std::uint32_t blockMax = l.blocks_[i / kBlockOps].maxDuration;
    if (i % kBlockOps == 0 && i + kBlockOps <= to && blockMax != kFar && std::int64_t(blockMax) < minDurationNs) {
      i += kBlockOps;  // the whole block is shorter
      continue;
    }
    const Op op = view_.at(l.op(i));
    if (op.end - op.start >= minDurationNs) return i;
    ++i;
  }
  return to;
}

std::int64_t LaneIndex::maxEndIn(std::uint16_t id, std::size_t from, std::size_t to) const {
  const LaneOps& l = lane(id);
  to = std::min(to, l.size());
  std::int64_t m = kMinNs;
  std::size_t i = from;
  while (i < to) {
    if (i % kBlockOps == 0 && i + kBlockOps <= to) {
      m = std::max(m, l.blocks_[i / kBlockOps].maxEnd);
      i += kBlockOps;
      continue;
    }
    m = std::max(m, view_.at(l.op(i)).end);
    ++i;
  }
  return m;
}

void LaneIndex::dropBefore(std::uint64_t begin) {
  for (LaneOps& l : lanes_) {
    // Rebased on the view's first op: what remains is at or after it.
    const std::uint64_t shift = begin > l.base_ ? begin - l.base_ : 0;
    l.ops_.keepIf([&](std::uint32_t& op) {
      if (op < shift) return false;
      op = std::uint32_t(op - shift);
      return true;
    });
    l.maxEndUp_.truncate(l.ops_.size());  // rewritten below
    l.base_ += shift;
    rebuildBlocks(l, 0);
  }
  recomputeExtent();
}

void LaneIndex::recomputeExtent() {
  first_ = std::numeric_limits<std::int64_t>::max();
  last_ = kMinNs;
  for (std::size_t id = 0; id < lanes_.size(); ++id) {
    const LaneOps& l = lanes_[id];
    if (l.empty()) continue;
    first_ = std::min(first_, view_.at(l.op(0)).start);
    last_ = std::max(last_, maxEndUpTo(std::uint16_t(id), l.size() - 1));
  }
}

std::size_t LaneIndex::firstEndingAfter(std::uint16_t id, std::int64_t t) const {
  const LaneOps& l = lane(id);
  // Blocks by the running max at their end, then the entries of the first one past t.
  const auto blk = std::partition_point(l.blocks_.begin(), l.blocks_.end(),
                                        [t](const Block& b) { return std::max(b.endsBefore, b.maxEnd) <= t; });
  if (blk == l.blocks_.end()) return l.size();
  std::size_t lo = std::size_t(blk - l.blocks_.begin()) * kBlockOps, hi = std::min(l.size(), lo + kBlockOps);
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (maxEndUpTo(id, mid) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

std::size_t LaneIndex::firstStartingAtOrAfter(std::uint16_t id, std::int64_t t, std::size_t from) const {
  const LaneOps& l = lane(id);
  std::size_t lo = std::min(from, l.size()), hi = l.size();
  if (lo < hi) {
    // Blocks after from's own: find the first whose first start is >= t.
    const std::size_t b0 = lo / kBlockOps + 1;
    std::size_t blo = b0, bhi = l.blocks_.size();
    for (std::size_t step = 1; blo + step <= bhi; step *= 2) {
      if (l.blocks_[blo + step - 1].firstStart >= t) {
        bhi = blo + step - 1;
        break;
      }
      blo += step;
    }
    while (blo < bhi) {
      const std::size_t mid = blo + (bhi - blo) / 2;
      if (l.blocks_[mid].firstStart < t) blo = mid + 1;
      else bhi = mid;
    }
    // Block blo starts at or after t; the block before it (if searched) does not.
    if (blo > b0) lo = std::max(lo, (blo - 1) * kBlockOps + 1);
    hi = std::min(hi, blo * kBlockOps);
    if (lo < hi) narrowBySamples(l, t, lo, hi);
  }
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (view_.at(l.op(mid)).start < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

void LaneIndex::narrowBySamples(const LaneOps& l, std::int64_t t, std::size_t& lo, std::size_t& hi) {
  const std::size_t b = lo / kBlockOps, first = b * kBlockOps;
  const Block& blk = l.blocks_[b];
  if (t <= blk.firstStart) {  // every op of the block starts at or after t
    hi = lo;
    return;
  }
  const std::uint64_t rel = std::uint64_t(t) - std::uint64_t(blk.firstStart);
  for (std::size_t k = 1; k < kBlockOps / kSampleStep; ++k) {
    const std::size_t pos = first + k * kSampleStep;
    if (pos >= hi) break;
    const std::uint32_t s = blk.starts[k - 1];
    if (s == kFar && rel >= kFar) return;  // that far on, the samples cannot tell
    if (s >= rel) {                         // entry pos starts at or after t
      hi = pos;
      return;
    }
    if (pos >= lo) lo = pos + 1;  // entry pos starts before t
  }
}

std::size_t LaneIndex::memoryBytes() const {
  std::size_t bytes = sizeof(*this) + lanes_.capacity() * sizeof(LaneOps);
  for (const LaneOps& l : lanes_) bytes += l.ops_.memoryBytes() + l.maxEndUp_.memoryBytes() + l.blocks_.capacity() * sizeof(Block);
  return bytes;
}

}  // namespace pipescope::ui
