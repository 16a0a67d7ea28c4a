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
// that ends after t" is a binary search even when ops on a lane overlap.
#include <cstdint>
#include <limits>
#include <vector>

#include "trace/TraceStore.h"

namespace pipescope::ui {

class LaneIndex {
 public:
  struct LaneOps {
    std::vector<std::uint64_t> ops;     ///< global op indices, sorted by op start
    std::vector<std::int64_t> maxEnd;   ///< maxEnd[i] = max end of ops[0..i]
    std::uint32_t kindMask = 0;         ///< bit k set: the lane holds ops of OpKind k
  };

  /// Forgets everything (a new trace).
  void clear();
  /// Brings the index up to date with `view`, a later snapshot of the same store.
  void update(const TraceView& view);

  const TraceView& view() const { return view_; }
  /// Ops of lane `id` (empty when the lane has none).
  const LaneOps& lane(std::uint16_t id) const;
  std::size_t laneSlots() const { return lanes_.size(); }

  /// Position in lane(id).ops of the first op that may overlap [t, ...): the first
  /// whose running max end is > t.
  std::size_t firstEndingAfter(std::uint16_t id, std::int64_t t) const;
  /// Position of the first op whose start is >= t, searching from `from`.
  std::size_t firstStartingAtOrAfter(std::uint16_t id, std::int64_t t, std::size_t from = 0) const;

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

  TraceView view_;
  std::uint64_t indexedEnd_ = 0;
  std::vector<LaneOps> lanes_;
  std::int64_t first_ = std::numeric_limits<std::int64_t>::max();
  std::int64_t last_ = std::numeric_limits<std::int64_t>::min();
};

}  // namespace pipescope::ui
