#pragma once
// Per-lane index of a trace's ops, sorted by start time, so the timeline finds the
// ops of a visible time range by binary search instead of scanning the trace.
//
// Ops arrive in publication order (not start order) and a live trace with a
// bounded window drops old chunks from the front. update() extends the index with
// the ops published since the last call (inserting near the end when an op starts
// before the last one indexed) and compacts away dropped ops; op indices are the
// store's global indices, which stay valid across drops.
//
// An op is indexed on its `lane` (host thread or stream) and, for GPU ops, also on
// its `engineLane`. Each entry keeps a running maximum of end times, so "first op
// that ends after t" is a binary search even when ops on a lane overlap. Blocks of
// kBlockOps entries keep their first start, longest duration and latest end, so
// folding can step over thousands of narrow ops per pixel without visiting each one.
//
// An entry is 8 bytes: its op as a 32-bit offset from the lane's base index, and the
// running maximum end as a 32-bit offset from its block's anchor (the later of the
// block's first start and the latest end before the block). The rare entry whose
// running maximum lies 4.3 s or more past that anchor (after an op that long in the
// same block) is marked and recomputed from its block's ops when asked for.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "timeline/PagedArray.h"
#include "trace/TraceStore.h"

namespace pipescope::ui {

class LaneIndex {
 public:
  static constexpr std::size_t kBlockOps = 64;
  /// Every kSampleStep-th entry of a block has its start in the block, so finding an
  /// op by start inside a block reads 3 ops instead of 6 (each a likely cache miss).
  static constexpr std::size_t kSampleStep = 8;
  static constexpr std::uint32_t kFar = 0xFFFFFFFF;  ///< a 32-bit offset that did not fit (or no entry yet)
  struct Block {
    std::int64_t firstStart = 0;  ///< start of the block's first op (the earliest)
    std::int64_t maxEnd = 0;      ///< latest end of the block's ops
    std::int64_t endsBefore = std::numeric_limits<std::int64_t>::min();  ///< latest end of the ops before the block
    std::uint32_t maxDuration = 0;  ///< longest duration among them; kFar: 4.3 s or more
    /// starts[k]: start of entry (k + 1) * kSampleStep - firstStart; kFar: too far, or no such entry yet.
    std::uint32_t starts[kBlockOps / kSampleStep - 1];
  };
  /// One lane's ops, sorted by start.
  class LaneOps {
   public:
    std::size_t size() const { return ops_.size(); }
    bool empty() const { return ops_.empty(); }
    /// Global op index of the op at position pos.
    std::uint64_t op(std::size_t pos) const { return base_ + ops_[pos]; }

    std::uint32_t kindMask = 0;  ///< bit k set: the lane holds ops of OpKind k

   private:
    friend class LaneIndex;
    static std::int64_t anchor(const Block& b) { return std::max(b.endsBefore, b.firstStart); }

    std::uint64_t base_ = 0;
    // Two arrays, not one of pairs: the searches by start read only the op offsets.
    PagedArray<std::uint32_t> ops_;       // global index - base_
    PagedArray<std::uint32_t> maxEndUp_;  // running max end - the block's anchor, or kFar
    std::vector<Block> blocks_;  // blocks_[b] covers entries [b*kBlockOps, (b+1)*kBlockOps)
  };

  /// Forgets everything (a new trace).
  void clear();
  /// Brings the index up to date with `view`, a later snapshot of the same store.
  void update(const TraceView& view);

  const TraceView& view() const { return view_; }
  /// Ops of lane `id` (empty when the lane has none).
  const LaneOps& lane(std::uint16_t id) const;
  std::size_t laneSlots() const { return lanes_.size(); }

  /// Latest end among lane(id)'s ops [0, pos] (a running maximum: it never decreases with pos).
  std::int64_t maxEndUpTo(std::uint16_t id, std::size_t pos) const;
  /// Position in lane(id) of the first op that may overlap [t, ...): the first
  /// whose running max end is > t.
  std::size_t firstEndingAfter(std::uint16_t id, std::int64_t t) const;
  /// Position of the first op whose start is >= t, searching from `from`. Gallops
  /// over the blocks' first starts (a small contiguous array) from `from` on, then
  /// bisects one block: folding asks for the next pixel's first op, usually a few
  /// blocks on, and touches a handful of ops instead of log2(lane size) of them.
  std::size_t firstStartingAtOrAfter(std::uint16_t id, std::int64_t t, std::size_t from = 0) const;

  /// Position of the first op in [from, to) of lane(id) lasting at least
  /// minDurationNs, or `to` when none does.
  std::size_t firstLastingAtLeast(std::uint16_t id, std::size_t from, std::size_t to, std::int64_t minDurationNs) const;
  /// Latest end among lane(id)'s ops [from, to) (INT64_MIN when the range is empty).
  std::int64_t maxEndIn(std::uint16_t id, std::size_t from, std::size_t to) const;

  /// Earliest start and latest end over the indexed ops (0, 0 when empty).
  std::int64_t firstNs() const { return empty() ? 0 : first_; }
  std::int64_t lastNs() const { return empty() ? 0 : last_; }
  bool empty() const { return view_.empty(); }
  /// Bytes held by the index (for the memory-per-op figure).
  std::size_t memoryBytes() const;

 private:
  void insert(std::uint16_t laneId, std::uint64_t opIndex, const Op& op);
  void dropBefore(std::uint64_t begin);
  void recomputeExtent();
  void rebuildBlocks(LaneOps& l, std::size_t fromPos) const;
  /// Narrows [lo, hi) (inside one block) around the first op starting at or after t, from the block's samples.
  static void narrowBySamples(const LaneOps& l, std::int64_t t, std::size_t& lo, std::size_t& hi);

  TraceView view_;
  std::uint64_t indexedEnd_ = 0;
  std::vector<LaneOps> lanes_;
  std::int64_t first_ = std::numeric_limits<std::int64_t>::max();
  std::int64_t last_ = std::numeric_limits<std::int64_t>::min();
};

}  // namespace pipescope::ui
