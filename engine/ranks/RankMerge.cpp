#include "ranks/RankMerge.h"

#include <algorithm>
#include <filesystem>
#include <limits>

#include "io/TraceAssembler.h"
#include "io/TraceFiles.h"
#include "ranks/ClockAlignment.h"
#include "ranks/CollectiveMatch.h"
#include "ranks/RankParallel.h"

namespace pipescope {

namespace {

std::string rankLabel(const RankInfo& r) { return "rank " + std::to_string(r.rank); }

}  // namespace

std::shared_ptr<Trace> mergeRanks(const RankSet& set, const std::string& source,
                                  std::vector<std::string>* clockProblems) {
  const std::size_t n = set.ranks.size();
  if (n == 0) throw TraceFileError("'" + source + "': no rank to open");
  std::vector<RankInfo> infos;
  std::int64_t origin = std::numeric_limits<std::int64_t>::max();
  for (const auto& t : set.ranks) {
    auto r = t->ranks();
    infos.push_back(r.empty() ? RankInfo{} : r.front());
    origin = std::min(origin, infos.back().clockOriginNs);
  }
  // The traces' own time bases first, then the collectives' correction.
  std::vector<std::int64_t> shift(n);
  std::vector<std::vector<CollectiveCall>> calls(n);
  for (std::size_t r = 0; r < n; ++r) shift[r] = infos[r].clockOriginNs - origin;
  forEachRankInParallel(n, [&](std::size_t r) { calls[r] = collectiveCalls(*set.ranks[r], shift[r]); });
  // The calls are matched by order, the ends only telling one step from the next: the
  // clocks need agree only to within half a step before the correction.
  const std::vector<RankClock> clocks = alignClocks(matchCollectives(calls), n);
  for (std::size_t r = 0; r < n; ++r) shift[r] += clocks[r].offsetNs;

  TraceAssembler out(source);
  Trace& merged = out.trace();
  std::vector<DeviceInfo> devices;
  std::vector<std::vector<std::uint16_t>> laneMaps(n);
  std::vector<std::vector<std::string>> names(n);
  std::vector<TraceView> views;
  std::vector<std::size_t> rankStart;  // where each rank's ops begin in `ops`
  std::int64_t batches = 0;
  for (std::size_t r = 0; r < n; ++r) {
    const Trace& t = *set.ranks[r];
    DeviceInfo d = t.device();
    d.note = rankLabel(infos[r]) + (infos[r].worldSize > 0 ? " of " + std::to_string(infos[r].worldSize) : "") +
             ", from " + std::filesystem::path(infos[r].source).filename().string();
    devices.push_back(d);
    infos[r].device = int(r);
    infos[r].clockOffsetNs = clocks[r].offsetNs;
    infos[r].alignment = clocks[r].note;
    // Lanes: the rank's own, all on its device (its host threads are its own too).
    const auto lanes = t.lanes();
    laneMaps[r].assign(lanes.size(), kNoLane);
    out.reserveLanes(lanes.size());
    for (const Lane& l : lanes) laneMaps[r][l.id] = out.addLane(l.kind, l.index, int(r), l.name);
    names[r] = t.names();
    views.push_back(t.ops().snapshot());
    rankStart.push_back(r == 0 ? 0 : rankStart.back() + views[r - 1].size());
    batches = std::max(batches, t.completedBatches());
  }
  rankStart.push_back(n == 0 ? 0 : rankStart.back() + views.back().size());

  // Each rank's ops copied into its own stretch of `ops`, on the clock of the merge
  // (time 0 set below), on its lanes of the merged trace, its names still its own:
  // the names are interned after, in rank order and each rank's order of first use,
  // so they get the same ids a copy of one rank after the other would give.
  constexpr std::uint16_t kNotYet = 0xFFFF;
  std::vector<Op> ops(rankStart.back());
  std::vector<std::vector<std::uint16_t>> nameMaps(n);   // [rank][its name id]: merged id
  std::vector<std::vector<std::uint16_t>> firstUses(n);  // [rank]: its names in order of first use
  std::vector<std::int64_t> earliest(n, std::numeric_limits<std::int64_t>::max());
  std::vector<char> inOrder(n, 1);  // every rank's ops by start, as the importers leave them
  forEachRankInParallel(n, [&](std::size_t r) {
    const std::vector<std::uint16_t>& laneMap = laneMaps[r];
    // A name that is its op kind's own name is the kind's (0): told once per name and kind.
    const std::vector<std::string>& rankNames = names[r];
    std::vector<std::uint16_t> kindName(rankNames.size(), 0);  // bit k: the name is kind k's
    for (std::size_t i = 0; i < rankNames.size(); ++i)
      for (int k = 0; k < kOpKindCount; ++k)
        if (rankNames[i] == toString(OpKind(k))) kindName[i] |= std::uint16_t(1u << k);
    std::vector<std::uint16_t>& nameMap = nameMaps[r];
    nameMap.assign(rankNames.size(), kNotYet);
    std::vector<std::uint16_t>& firstUse = firstUses[r];
    const std::int64_t by = shift[r];
    Op* dst = ops.data() + rankStart[r];
    std::int64_t first = std::numeric_limits<std::int64_t>::max(), lastStart = std::numeric_limits<std::int64_t>::min();
    bool ordered = true;
    views[r].forEach([&](const Op& src) {
      Op op = src;
      first = std::min(first, std::min(op.submit, op.start));
      if (op.lane != kNoLane) op.lane = op.lane < laneMap.size() ? laneMap[op.lane] : kNoLane;
      if (op.engineLane != kNoLane) op.engineLane = op.engineLane < laneMap.size() ? laneMap[op.engineLane] : kNoLane;
      if (op.name == 0 || op.name >= rankNames.size() || (kindName[op.name] & (1u << unsigned(op.kind))) != 0) {
        op.name = 0;
      } else if (nameMap[op.name] == kNotYet) {
        nameMap[op.name] = 0;  // seen; its merged id comes below
        firstUse.push_back(op.name);
      }
      op.submit += by;
      op.ready += by;
      op.start += by;
      op.end += by;
      if (op.start < lastStart) ordered = false;
      lastStart = op.start;
      *dst++ = op;
    });
    if (first != std::numeric_limits<std::int64_t>::max()) earliest[r] = first + by;
    inOrder[r] = ordered;
  });
  std::int64_t first = *std::min_element(earliest.begin(), earliest.end());
  if (first == std::numeric_limits<std::int64_t>::max()) first = 0;
  for (auto& s : shift) s -= first;  // time 0: the first op of any rank
  for (std::size_t r = 0; r < n; ++r)
    for (std::uint16_t name : firstUses[r]) nameMaps[r][name] = out.internName(names[r][name]);
  forEachRankInParallel(n, [&](std::size_t r) {
    const std::vector<std::uint16_t>& nameMap = nameMaps[r];
    for (std::size_t i = rankStart[r]; i < rankStart[r + 1]; ++i) {
      Op& op = ops[i];
      if (op.name != 0) op.name = nameMap[op.name];
      op.submit -= first;
      op.ready -= first;
      op.start -= first;
      op.end -= first;
    }
  });

  const auto byStart = [](const Op& a, const Op& b) { return a.start < b.start; };
  if (std::all_of(inOrder.begin(), inOrder.end(), [](char o) { return o != 0; })) {
    // Merging the ranks' ordered runs, neighbours first, gives what a stable sort of the
    // whole would (ties in rank order) in n log(ranks) rather than n log(n); the merges
    // of one round touch separate stretches and run side by side.
    for (std::size_t width = 1; width + 1 < rankStart.size(); width *= 2) {
      std::vector<std::size_t> lefts;
      for (std::size_t i = 0; i + width + 1 < rankStart.size(); i += 2 * width) lefts.push_back(i);
      forEachRankInParallel(lefts.size(), [&](std::size_t k) {
        const std::size_t i = lefts[k];
        const std::size_t mid = rankStart[i + width], end = rankStart[std::min(i + 2 * width, rankStart.size() - 1)];
        std::inplace_merge(ops.begin() + std::ptrdiff_t(rankStart[i]), ops.begin() + std::ptrdiff_t(mid),
                           ops.begin() + std::ptrdiff_t(end), byStart);
      });
    }
  } else {
    std::stable_sort(ops.begin(), ops.end(), byStart);
  }
  out.addOps(ops, OpOrigin{"op", 0});

  merged.setDevices(devices);
  merged.setRanks(infos);
  // Imported ranks carry no configuration (analysis tells imported traces by that);
  // native traces of ranks keep the first rank's.
  const auto history = set.ranks.front()->configHistory();
  for (std::size_t i = 0; i < history.size(); ++i)
    i == 0 ? merged.setConfig(history[i].config) : merged.addConfigChange(history[i].firstBatch, history[i].config);
  IterationInfo iterations = set.ranks.front()->iterations();
  iterations.count = batches;
  merged.setIterations(iterations);
  merged.setCompletedBatches(batches);
  std::string message = std::to_string(n) + " ranks" +
                        (set.worldSize > 0 ? " of a job of " + std::to_string(set.worldSize) : "") + " from " + source;
  for (const auto& p : set.problems) message += "; " + p;
  for (std::size_t r = 0; r < n; ++r) {
    if (clocks[r].aligned) continue;
    message += "; " + rankLabel(infos[r]) + ": " + clocks[r].note;
    if (clockProblems != nullptr) {
      // The note starts "not aligned: " and says why.
      std::string why = clocks[r].note;
      if (const auto colon = why.find(": "); colon != std::string::npos) why = why.substr(colon + 2);
      clockProblems->push_back(rankLabel(infos[r]) + ": clock not aligned (" + why + ")");
    }
  }
  merged.setOutcome(RunOutcome{RunState::Finished, message});
  return out.finish();
}

bool opensAsRanks(const std::vector<std::string>& paths, const std::string& worker) {
  if (paths.size() > 1) return true;
  if (paths.empty() || !worker.empty() || !std::filesystem::is_directory(paths.front())) return false;
  return profilerTraceFilesIn(paths.front()).size() > 1;
}

std::shared_ptr<Trace> loadRanks(const std::vector<std::string>& paths, const ImportOptions& options,
                                 const LoadControl& control, std::vector<std::string>* problems) {
  std::vector<std::string> files;
  for (const auto& p : paths)
    for (auto& f : rankFilesAt(p)) files.push_back(std::move(f));
  RankSet set = loadRankFiles(files, options, control);
  control.checkCancel();
  std::string source = paths.size() == 1 ? paths.front() : std::to_string(paths.size()) + " files";
  std::vector<std::string> clockProblems;
  auto trace = mergeRanks(set, source, &clockProblems);
  if (problems != nullptr) {
    *problems = set.problems;
    problems->insert(problems->end(), clockProblems.begin(), clockProblems.end());
  }
  control.report(1.0);
  return trace;
}

}  // namespace pipescope
