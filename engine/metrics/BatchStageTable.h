#pragma once
// Each batch's own stage times (GPU stages: summed op durations; CPU stages: the
// longest worker share) and its last op's end, for the batch count and the bound's
// shortest batch. A long run has millions of batches, so the table is compact: ids
// are grouped in pages of consecutive ids (batch ids are dense in practice), each
// page keeping 32-bit nanosecond figures until one of them needs more, and the end
// only where the caller asks for it. A page is found by a hash lookup when the id
// leaves the page used last, so a run's ops, which come batch after batch, rarely pay it.
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "metrics/IdealBound.h"

namespace pipescope {

class BatchStageTable {
 public:
  enum Stage : std::uint8_t { H2D, Kernel, D2H, Preprocess, Postprocess, kStages };

  /// keepEnds: remember each batch's latest op end (countEndingIn and ends need it);
  /// keepStages = false: only ends (add, raise and shortest are not to be called).
  explicit BatchStageTable(bool keepEnds, bool keepStages = true) : keepEnds_(keepEnds), keepStages_(keepStages) {}

  /// Records that `batch` has an op ending at `end`.
  void touch(std::int32_t batch, std::int64_t end);
  /// Adds `ns` to a summed stage (H2D, Kernel, D2H) of a touched batch.
  void add(std::int32_t batch, Stage stage, std::int64_t ns);
  /// Raises a longest-share stage (Preprocess, Postprocess) of a touched batch to `ns`.
  void raise(std::int32_t batch, Stage stage, std::int64_t ns);

  bool empty() const { return count_ == 0; }
  std::int64_t count() const { return count_; }
  /// Batches whose latest op end lies in (fromNs, toNs]; needs keepEnds.
  std::int64_t countEndingIn(std::int64_t fromNs, std::int64_t toNs) const;
  /// Every batch's latest op end, in no particular order; needs keepEnds.
  std::vector<std::int64_t> ends() const;
  /// Per stage, the smallest figure of any batch (apiNs 0); all zero when empty.
  StageTimes shortest() const;

 private:
  static constexpr std::uint32_t kPageBits = 12;
  static constexpr std::uint32_t kPageIds = 1u << kPageBits;
  struct Page {
    std::vector<std::uint32_t> narrow;   // kStages per id, while every figure fits
    std::vector<std::int64_t> wide;      // kStages per id, once one did not
    std::vector<std::int64_t> ends;      // keepEnds only
    std::vector<std::uint64_t> present;  // one bit per id
    std::int64_t get(std::uint32_t slot, Stage s) const;
    void set(std::uint32_t slot, Stage s, std::int64_t v);
  };
  Page& pageOf(std::int32_t batch, std::uint32_t& slot);
  template <typename F>
  void forEachPresent(F&& f) const;

  bool keepEnds_;
  bool keepStages_;
  std::int64_t count_ = 0;
  std::unordered_map<std::uint32_t, std::unique_ptr<Page>> pages_;
  std::uint32_t lastPageIndex_ = 0;
  Page* lastPage_ = nullptr;
};

}  // namespace pipescope
