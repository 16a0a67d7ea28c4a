#pragma once
// The per-run summary of wait causes: for each kind of GPU op, how much of its time
// was spent waiting on each cause, and mostly behind what.
#include <array>
#include <cstdint>
#include <map>
#include <tuple>
#include <string>
#include <vector>

#include "analysis/WaitAnalysis.h"

namespace pipescope {

/// How a blocker's batch relates to the waiting op's batch.
enum class BatchRelation : std::uint8_t { SameBatch, PreviousBatch, EarlierBatch, LaterBatch, Unknown };
/// "of the same batch", "of the previous batch", "of an earlier batch", "of a later batch", "".
std::string_view toString(BatchRelation r);

/// What most of one cause's wait was spent behind.
struct DominantBlocker {
  bool known = false;
  OpKind kind = OpKind::Kernel;
  BatchRelation relation = BatchRelation::Unknown;
  double ns = 0;  ///< wait time behind blockers of this kind and relation
};

struct KindWaits {
  OpKind kind = OpKind::Kernel;
  std::int64_t ops = 0;
  double execNs = 0;                             ///< sum of the ops' durations
  std::array<double, kWaitCauseCount> waitNs{};  ///< sum of wait per cause
  std::array<DominantBlocker, kWaitCauseCount> blockers{};
  std::string engineName;  ///< the engine lane's name ("H2D copy engine"), if any

  double totalWaitNs() const;
  /// Share of this kind's time (waits + execution) spent waiting on `cause`.
  double share(WaitCause cause) const;
};

struct WaitSummary {
  std::vector<KindWaits> kinds;                  ///< H2D, kernel, D2H, memset: those present
  std::array<double, kWaitCauseCount> waitNs{};  ///< over every GPU op
  double execNs = 0;
  double totalWaitNs() const;
  /// Share of all GPU op time (waits + execution) spent waiting on `cause`.
  double share(WaitCause cause) const;
  const KindWaits* find(OpKind kind) const;
};

WaitSummary summarizeWaits(const WaitAnalysis& analysis, const TraceView& ops, const std::vector<Lane>& lanes);

/// The summary built from several analyses of disjoint parts of `ops` (a very large
/// trace analysed a window at a time): the result is the same as summarizeWaits() of
/// one analysis holding all their segments.
class WaitSummaryBuilder {
 public:
  /// Counts the ops' execution time; `ops` and `lanes` must outlive the builder.
  WaitSummaryBuilder(const TraceView& ops, const std::vector<Lane>& lanes);
  /// Adds the waits of one analysis (of ops inside `ops`, not added before).
  void add(const WaitAnalysis& analysis);
  WaitSummary finish() const;

 private:
  const TraceView& ops_;
  const std::vector<Lane>& lanes_;
  KindWaits slots_[4];
  bool present_[4] = {false, false, false, false};
  std::map<std::uint16_t, double> engineUse_[4];  // engine lane -> exec time, to name the kind's engine
  std::map<std::tuple<int, int, int, int>, double> behind_;  // (slot, cause, blocker kind, relation) -> ns
};

/// The summary in sentences, largest share first, e.g. "31% of H2D time waited on the
/// H2D copy engine, mostly behind D2H of the previous batch." Shares below
/// `minShare` are left out; at most `maxSentences`.
std::vector<std::string> describeSummary(const WaitSummary& summary, double minShare = 0.05, int maxSentences = 4);

}  // namespace pipescope
