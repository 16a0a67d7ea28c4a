#include "ranks/ClockAlignment.h"

#include <algorithm>
#include <cstdlib>

#include "analysis/AnalysisFormat.h"

namespace pipescope {

namespace {

std::int64_t median(std::vector<std::int64_t> v) {
  if (v.empty()) return 0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(mid), v.end());
  return v[mid];
}

}  // namespace

std::vector<RankClock> alignClocks(const CollectiveMatch& match, std::size_t rankCount) {
  std::vector<RankClock> out(rankCount);
  if (rankCount == 0) return out;
  out[0].aligned = true;
  out[0].collectives = match.calls.size();
  out[0].note = "the reference clock";
  std::vector<const MatchedCollective*> calls;
  for (const auto& call : match.calls)
    if (!isRootedCollective(call.type)) calls.push_back(&call);
  if (calls.size() < kMinAlignmentCollectives) {
    calls.clear();
    for (const auto& call : match.calls) calls.push_back(&call);
  }
  for (std::size_t r = 1; r < rankCount; ++r) {
    RankClock& c = out[r];
    c.collectives = calls.size();
    if (calls.size() < kMinAlignmentCollectives) {
      c.note = "not aligned: " + std::to_string(calls.size()) +
               " collectives matched with the first rank (at least " + std::to_string(kMinAlignmentCollectives) +
               " needed); kept on its trace's own time base";
      continue;
    }
    std::vector<std::int64_t> diff;
    diff.reserve(calls.size());
    for (const MatchedCollective* call : calls) diff.push_back(call->end[0] - call->end[r]);
    const std::int64_t offset = median(diff);
    std::vector<std::int64_t> left;
    left.reserve(diff.size());
    for (std::int64_t d : diff) left.push_back(std::llabs(d - offset));
    c.residualNs = median(left);
    if (c.residualNs > kMaxAlignmentResidualNs) {
      c.note = "not aligned: its collectives end " + formatNs(double(c.residualNs)) +
               " apart from the first rank's under the best single offset (median); kept on its trace's own "
               "time base";
      continue;
    }
    c.offsetNs = offset;
    c.aligned = true;
    c.note = "aligned on " + std::to_string(calls.size()) + " collectives: offset " +
             (offset >= 0 ? "+" : "-") + formatNs(double(std::llabs(offset))) + ", collective ends then within " +
             formatNs(double(c.residualNs)) + " (median)";
  }
  return out;
}

}  // namespace pipescope
