#include "ranks/RankAnalysis.h"

#include <algorithm>
#include <map>

#include "analysis/AnalysisFormat.h"
#include "metrics/Intervals.h"
#include "ranks/CollectiveMatch.h"
#include "ranks/RankWork.h"

namespace pipescope {

namespace {

struct RankOps {
  Intervals compute, communication, memory, all;
  std::vector<Op> gpu;  // for the idle causes, in start order
  std::map<std::int32_t, Interval> batches;
  std::map<std::int32_t, std::int64_t> steps;  // step period per batch
};

std::int64_t length(const Intervals& merged) { return std::int64_t(totalLength(merged)); }

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// Idle time between the rank's GPU ops, by what the next op was waiting for.
void idleCauses(RankFigures& f, const Intervals& busy, std::vector<Op>& gpu) {
  std::sort(gpu.begin(), gpu.end(), [](const Op& a, const Op& b) { return a.start < b.start; });
  std::size_t next = 0;
  for (std::size_t i = 1; i < busy.size(); ++i) {
    const std::int64_t from = busy[i - 1].second, to = busy[i].first;
    while (next < gpu.size() && gpu[next].start < to) ++next;
    const Op* op = next < gpu.size() ? &gpu[next] : nullptr;
    // Launched after the GPU ran dry: the GPU waited for the host.
    if (op != nullptr && op->submit > from)
      f.idleWaitingForHostNs += std::min(to, op->submit) - from, f.idleWaitingOtherNs += to - std::min(to, op->submit);
    else
      f.idleWaitingOtherNs += to - from;
  }
}

// The straggler rule, for the whole run or for one iteration: the rank that made the
// others wait most is named when it made them wait at least kStragglerLead times as
// long as the next rank did, and kept each of them idle, waiting for it, at least
// kStragglerShare of a step.
bool standsOut(std::int64_t worstWaitNs, std::int64_t nextWaitNs, double idlePerWaitingRankNs, double stepNs) {
  return stepNs > 0 && double(worstWaitNs) >= kStragglerLead * double(nextWaitNs) &&
         idlePerWaitingRankNs >= kStragglerShare * stepNs;
}

// How much of [from, to) has no interval of `merged` over it.
std::int64_t uncovered(std::int64_t from, std::int64_t to, const Intervals& merged) {
  std::int64_t left = to - from;
  auto it = std::upper_bound(merged.begin(), merged.end(), Interval{from, from},
                             [](const Interval& a, const Interval& b) { return a.second < b.second; });
  for (; it != merged.end() && it->first < to; ++it) left -= std::min(to, it->second) - std::max(from, it->first);
  return left;
}

}  // namespace

RankAnalysis analyzeRanks(const Trace& trace) {
  RankAnalysis out;
  auto infos = trace.ranks();
  if (infos.empty()) infos.push_back(RankInfo{});
  const bool merged = infos.size() > 1;
  const auto lanes = trace.lanes();
  const auto names = trace.names();

  std::map<int, std::size_t> positionOfDevice;
  for (std::size_t i = 0; i < infos.size(); ++i) positionOfDevice[merged ? infos[i].device : -1] = i;
  std::vector<RankOps> perRank(infos.size());
  trace.ops().snapshot().forEach([&](const Op& op) {
    if (op.lane >= lanes.size()) return;
    const Lane& lane = lanes[op.lane];
    auto it = positionOfDevice.find(merged ? lane.device : -1);
    if (it == positionOfDevice.end()) return;
    RankOps& r = perRank[it->second];
    if (op.batch >= 0) {
      auto [b, fresh] = r.batches.emplace(op.batch, Interval{op.start, op.end});
      if (!fresh) b->second = {std::min(b->second.first, op.start), std::max(b->second.second, op.end)};
    }
    const RankWork work = rankWorkOf(op, lane, op.name < names.size() ? names[op.name] : names.front());
    if (work == RankWork::None) return;
    const Interval span{op.start, op.end};
    r.all.push_back(span);
    r.gpu.push_back(op);
    (work == RankWork::Communication ? r.communication : work == RankWork::Compute ? r.compute : r.memory)
        .push_back(span);
  });

  std::vector<Intervals> computeOf(infos.size());
  for (std::size_t i = 0; i < infos.size(); ++i) {
    RankOps& r = perRank[i];
    RankFigures f;
    f.rank = infos[i].rank;
    f.device = infos[i].device;
    f.source = infos[i].source;
    const Intervals all = mergeIntervals(std::move(r.all));
    const Intervals compute = mergeIntervals(std::move(r.compute));
    const Intervals comm = mergeIntervals(std::move(r.communication));
    f.computeNs = length(compute);
    computeOf[i] = compute;
    f.communicationNs = length(comm);
    const std::int64_t overlapped = length(intersectMerged(comm, compute));
    f.exposedCommunicationNs = f.communicationNs - overlapped;
    f.overlap = f.communicationNs > 0 ? double(overlapped) / double(f.communicationNs) : 0.0;
    f.memoryNs = length(mergeIntervals(std::move(r.memory)));
    if (!all.empty()) {
      f.spanNs = all.back().second - all.front().first;
      f.idleNs = f.spanNs - length(all);
      idleCauses(f, all, r.gpu);
    }
    // A step lasts from its start (the ProfilerStep range's, the earliest op of the
    // batch) to the next step's start, the last one to its last op: its GPU work runs
    // into the next step's host range, so first-to-last-op spans would overlap.
    for (auto it = r.batches.begin(); it != r.batches.end(); ++it) {
      const auto next = std::next(it);
      r.steps[it->first] = (next == r.batches.end() ? it->second.second : next->second.first) - it->second.first;
    }
    f.iterations = std::int64_t(r.steps.size());
    double sum = 0;
    for (const auto& [b, d] : r.steps) sum += double(d);
    f.iterationMeanNs = r.steps.empty() ? 0.0 : sum / double(r.steps.size());
    out.ranks.push_back(std::move(f));
  }

  // Iterations by batch number, as every rank numbers its ProfilerSteps in order.
  std::map<std::int32_t, RankIteration> iterations;
  for (std::size_t i = 0; i < infos.size(); ++i)
    for (const auto& [b, d] : perRank[i].steps) {
      RankIteration& it = iterations[b];
      it.index = b;
      it.durationNs.resize(infos.size(), 0);
      it.madeOthersWaitNs.resize(infos.size(), 0);
      it.madeOthersIdleNs.resize(infos.size(), 0);
      it.durationNs[i] = d;
    }
  // A step of the job: the median over the ranks of their mean step.
  std::vector<double> iterationMeans;
  for (const auto& r : out.ranks)
    if (r.iterationMeanNs > 0) iterationMeans.push_back(r.iterationMeanNs);
  const double iteration = median(iterationMeans);

  // The straggler, collective by collective.
  if (infos.size() > 1) {
    std::vector<std::vector<CollectiveCall>> calls;
    for (const RankInfo& info : infos) calls.push_back(collectiveCalls(trace, 0, info.device));
    const CollectiveMatch match = matchCollectives(calls);
    out.collectives = match.calls.size();
    out.matchNote = match.note;
    const std::size_t n = infos.size();
    std::size_t inconsistent = 0;
    std::vector<std::int64_t> spreads;
    for (const MatchedCollective& c : match.calls) {
      // The same call ends together everywhere (but for a rooted call's root, which may
      // leave once it has sent); one that does not is not the same call, or a clock
      // could not be aligned: it says nothing about who waited.
      std::vector<std::int64_t> ends = c.end;
      std::sort(ends.begin(), ends.end());
      const std::size_t together = isRootedCollective(c.type) ? 1 : 0;
      if (ends.back() - ends[std::min(together, ends.size() - 1)] > kMaxCollectiveEndSkewNs) {
        ++inconsistent;
        continue;
      }
      const std::size_t last = std::size_t(std::max_element(c.start.begin(), c.start.end()) - c.start.begin());
      spreads.push_back(c.start[last] - *std::min_element(c.start.begin(), c.start.end()));
      std::int64_t waited = 0, idle = 0;
      for (std::size_t r = 0; r < n; ++r) {
        if (r == last) continue;
        // A rank waits inside its own kernel, never longer than it ran.
        const std::int64_t w = std::clamp<std::int64_t>(c.start[last] - c.start[r], 0, c.end[r] - c.start[r]);
        out.ranks[r].waitedForOthersNs += w;
        idle += uncovered(c.start[r], c.start[r] + w, computeOf[r]);
        waited += w;
      }
      out.ranks[last].madeOthersWaitNs += waited;
      out.ranks[last].madeOthersIdleNs += idle;
      ++out.ranks[last].collectivesLast;
      if (auto it = iterations.find(c.batch[last]); it != iterations.end()) {
        it->second.madeOthersWaitNs[last] += waited;
        it->second.madeOthersIdleNs[last] += idle;
      }
    }
    if (inconsistent > 0)
      out.matchNote += std::string(out.matchNote.empty() ? "" : "; ") + std::to_string(inconsistent) +
                       " matched collectives do not end together on every rank and are left out of the waits";
    if (!spreads.empty()) {
      std::nth_element(spreads.begin(), spreads.begin() + std::ptrdiff_t(spreads.size() / 2), spreads.end());
      out.arrivalSpreadNs = spreads[spreads.size() / 2];
    }
    for (auto& [b, it] : iterations) {
      std::vector<std::size_t> byMade(n);
      for (std::size_t r = 0; r < n; ++r) byMade[r] = r;
      std::stable_sort(byMade.begin(), byMade.end(),
                       [&](std::size_t x, std::size_t y) { return it.madeOthersWaitNs[x] > it.madeOthersWaitNs[y]; });
      const std::size_t worst = byMade[0];
      if (standsOut(it.madeOthersWaitNs[worst], it.madeOthersWaitNs[byMade[1]],
                    double(it.madeOthersIdleNs[worst]) / double(n - 1), iteration)) {
        it.straggler = out.ranks[worst].rank;
        it.stragglerWaitNs = it.madeOthersWaitNs[worst];
      }
    }
  }
  for (auto& [b, it] : iterations) out.iterations.push_back(std::move(it));

  // The critical rank and what it costs the job per iteration.
  if (out.ranks.size() > 1) {
    std::vector<const RankFigures*> byMade;
    for (const auto& r : out.ranks) byMade.push_back(&r);
    std::stable_sort(byMade.begin(), byMade.end(), [](const RankFigures* a, const RankFigures* b) {
      return a->madeOthersWaitNs > b->madeOthersWaitNs;
    });
    const RankFigures& worst = *byMade[0];
    const RankFigures& next = *byMade[1];
    std::vector<double> idle;
    for (const auto& r : out.ranks)
      if (&r != &worst) idle.push_back(double(r.madeOthersIdleNs));  // the median of the other ranks
    // Per iteration and per waiting rank: the wall time each of the others lost.
    const double perIteration =
        double(std::max<std::int64_t>(1, worst.iterations)) * double(out.ranks.size() - 1);
    const double waitPerIteration = double(worst.madeOthersWaitNs) / perIteration;
    const double idlePerIteration = double(worst.madeOthersIdleNs) / perIteration;
    if (out.collectives == 0) {
      out.stragglerSentence = "no collective is found on every rank, so no rank can be said to make the others wait";
    } else if (standsOut(worst.madeOthersWaitNs, next.madeOthersWaitNs, idlePerIteration, iteration)) {
      out.straggler = worst.rank;
      out.stragglerSentence = "rank " + std::to_string(worst.rank) + " is the straggler: it arrived last at " +
                              std::to_string(worst.collectivesLast) + " of " + std::to_string(out.collectives) +
                              " collectives; each other rank waited " + formatNs(waitPerIteration) +
                              " for it per step, " + formatNs(idlePerIteration) + " of it with its GPU idle (" +
                              formatPercent(idlePerIteration / iteration) + " of a step of " + formatNs(iteration) +
                              ")";
      // If it were as fast as the median rank: the others would sit idle for it no
      // longer than they do for a typical rank.
      const double saved = std::max(0.0, idlePerIteration - median(idle) / perIteration);
      RankWhatIf w;
      w.question = "if rank " + std::to_string(worst.rank) + " were as fast as the median rank";
      w.iterationNs = std::max(0.0, iteration - saved);
      w.speedup = w.iterationNs > 0 ? iteration / w.iterationNs : 1.0;
      w.sentence = w.question + ": a step would take about " + formatNs(w.iterationNs) + " instead of " +
                   formatNs(iteration) + " (" + formatRatio(w.speedup) +
                   " faster, at most), the time the other ranks' GPUs now sit idle waiting for it";
      out.whatIfs.push_back(std::move(w));
    } else {
      out.stragglerSentence = "no straggler: the ranks arrive within " + formatNs(double(out.arrivalSpreadNs)) +
                              " of each other (median over the collectives); rank " + std::to_string(worst.rank) +
                              " makes the others wait most, " + formatNs(waitPerIteration) + " per step and rank, " +
                              formatNs(idlePerIteration) + " of it with their GPU idle (" +
                              formatPercent(iteration > 0 ? idlePerIteration / iteration : 0.0) + " of a step; " +
                              formatPercent(kStragglerShare) + " and " + formatRatio(kStragglerLead) +
                              " the next rank's wait would name it)";
    }
  }
  return out;
}

}  // namespace pipescope
