#include "ranks/RankMerge.h"

#include <algorithm>
#include <filesystem>
#include <limits>

#include "io/TraceAssembler.h"
#include "io/TraceFiles.h"
#include "ranks/ClockAlignment.h"
#include "ranks/CollectiveMatch.h"

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
  for (std::size_t r = 0; r < n; ++r) {
    shift[r] = infos[r].clockOriginNs - origin;
    calls[r] = collectiveCalls(*set.ranks[r], shift[r]);
  }
  // The calls are matched by order, the ends only telling one step from the next: the
  // clocks need agree only to within half a step before the correction.
  const std::vector<RankClock> clocks = alignClocks(matchCollectives(calls), n);
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  for (std::size_t r = 0; r < n; ++r) {
    shift[r] += clocks[r].offsetNs;
    set.ranks[r]->ops().snapshot().forEach([&](const Op& op) { first = std::min(first, std::min(op.submit, op.start) + shift[r]); });
  }
  if (first == std::numeric_limits<std::int64_t>::max()) first = 0;
  for (auto& s : shift) s -= first;  // time 0: the first op of any rank

  TraceAssembler out(source);
  Trace& merged = out.trace();
  std::vector<DeviceInfo> devices;
  std::vector<Op> ops;
  std::vector<std::size_t> rankStart;  // where each rank's ops begin in `ops`
  bool eachInOrder = true;             // every rank's ops by start, as the importers leave them
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
    std::vector<std::uint16_t> laneMap(lanes.size(), kNoLane);
    out.reserveLanes(lanes.size());
    for (const Lane& l : lanes)
      laneMap[l.id] = out.addLane(l.kind, l.index, int(r), l.name);
    const auto names = t.names();
    // Each of the rank's names interned once, on first use (so in the order the
    // per-op interning gave), not looked up again for every op.
    constexpr std::uint16_t kNotYet = 0xFFFF;
    std::vector<std::uint16_t> nameMap(names.size(), kNotYet);
    const TraceView view = t.ops().snapshot();
    rankStart.push_back(ops.size());
    ops.reserve(ops.size() + view.size());
    view.forEach([&](const Op& src) {
      Op op = src;
      if (op.lane != kNoLane) op.lane = op.lane < laneMap.size() ? laneMap[op.lane] : kNoLane;
      if (op.engineLane != kNoLane) op.engineLane = op.engineLane < laneMap.size() ? laneMap[op.engineLane] : kNoLane;
      if (op.name == 0 || op.name >= names.size() || names[op.name] == toString(op.kind)) {
        op.name = 0;
      } else {
        if (nameMap[op.name] == kNotYet) nameMap[op.name] = out.internName(names[op.name]);
        op.name = nameMap[op.name];
      }
      op.submit += shift[r];
      op.ready += shift[r];
      op.start += shift[r];
      op.end += shift[r];
      if (ops.size() > rankStart.back() && op.start < ops.back().start) eachInOrder = false;
      ops.push_back(op);
    });
    batches = std::max(batches, t.completedBatches());
  }
  const auto byStart = [](const Op& a, const Op& b) { return a.start < b.start; };
  if (eachInOrder) {
    // Merging the ranks' ordered runs, neighbours first, gives what a stable sort of the
    // whole would (ties in rank order) in n log(ranks) rather than n log(n).
    rankStart.push_back(ops.size());
    for (std::size_t width = 1; width + 1 < rankStart.size(); width *= 2)
      for (std::size_t i = 0; i + width + 1 < rankStart.size(); i += 2 * width) {
        const std::size_t mid = rankStart[i + width], end = rankStart[std::min(i + 2 * width, rankStart.size() - 1)];
        std::inplace_merge(ops.begin() + std::ptrdiff_t(rankStart[i]), ops.begin() + std::ptrdiff_t(mid),
                           ops.begin() + std::ptrdiff_t(end), byStart);
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
