#include "ranks/CollectiveMatch.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace pipescope {

std::string collectiveType(const std::string& name) {
  auto at = name.find("ncclDevKernel_");
  std::size_t from = at == std::string::npos ? std::string::npos : at + 14;
  if (from == std::string::npos) {
    at = name.find("ncclKernel_");
    if (at != std::string::npos) from = at + 11;
  }
  if (from == std::string::npos) {
    // Other spellings ("nccl:all_reduce" ranges are not kernels and never get here).
    std::string lower = name;
    for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    return lower.rfind("nccl", 0) == 0 ? name.substr(0, std::min<std::size_t>(name.size(), 48)) : std::string();
  }
  std::size_t to = from;
  while (to < name.size() && name[to] != '_' && name[to] != '(' && name[to] != '<') ++to;
  return name.substr(from, to - from);
}

std::vector<CollectiveCall> collectiveCalls(const Trace& trace, std::int64_t shiftNs, int device) {
  const auto names = trace.names();
  const auto lanes = trace.lanes();
  std::vector<CollectiveCall> out;
  trace.ops().snapshot().forEach([&](const Op& op) {
    if (op.kind != OpKind::Collective && op.kind != OpKind::Kernel) return;
    if (device >= 0 && (op.lane >= lanes.size() || lanes[op.lane].device != device)) return;
    // A Collective op on a communicator lane is the call as a whole, not one GPU's kernel.
    if (op.lane < lanes.size() && lanes[op.lane].kind == LaneKind::Collective) return;
    const std::string& name = op.name < names.size() ? names[op.name] : names.front();
    std::string type = collectiveType(name);
    if (type.empty()) {
      if (op.kind != OpKind::Collective) return;
      type = name.empty() ? "collective" : name;
    }
    out.push_back(CollectiveCall{op.start + shiftNs, op.end + shiftNs, std::move(type), op.batch, op.bytes});
  });
  std::stable_sort(out.begin(), out.end(),
                   [](const CollectiveCall& a, const CollectiveCall& b) { return a.start < b.start; });
  return out;
}

CollectiveMatch matchCollectives(const std::vector<std::vector<CollectiveCall>>& perRank, std::int64_t windowNs) {
  CollectiveMatch m;
  if (perRank.empty()) return m;
  // Per rank and type: the calls' ends, sorted, to find the nearest one.
  std::vector<std::map<std::string, std::vector<std::pair<std::int64_t, std::size_t>>>> ends(perRank.size());
  std::size_t most = 0;
  for (std::size_t r = 0; r < perRank.size(); ++r) {
    most = std::max(most, perRank[r].size());
    for (std::size_t i = 0; i < perRank[r].size(); ++i) ends[r][perRank[r][i].type].emplace_back(perRank[r][i].end, i);
    for (auto& [type, list] : ends[r]) std::sort(list.begin(), list.end());
  }
  std::vector<std::vector<bool>> used(perRank.size());
  for (std::size_t r = 0; r < perRank.size(); ++r) used[r].assign(perRank[r].size(), false);
  for (const CollectiveCall& first : perRank.front()) {
    MatchedCollective c;
    c.type = first.type;
    c.bytes = first.bytes;
    std::vector<std::size_t> picks;
    bool everywhere = true;
    for (std::size_t r = 0; r < perRank.size() && everywhere; ++r) {
      auto it = ends[r].find(first.type);
      if (it == ends[r].end()) {
        everywhere = false;
        break;
      }
      const auto& list = it->second;
      const std::size_t at = std::size_t(
          std::lower_bound(list.begin(), list.end(), std::make_pair(first.end, std::size_t(0))) - list.begin());
      std::int64_t best = windowNs + 1;
      std::size_t pick = 0;
      // The nearest unused end on either side (a few neighbours: calls end microseconds apart at most).
      for (std::size_t k = at >= 2 ? at - 2 : 0; k < std::min(list.size(), at + 2); ++k) {
        const std::int64_t d = std::llabs(list[k].first - first.end);
        if (d < best && !used[r][list[k].second]) best = d, pick = list[k].second;
      }
      if (best > windowNs) {
        everywhere = false;
        break;
      }
      picks.push_back(pick);
    }
    if (!everywhere) continue;
    for (std::size_t r = 0; r < perRank.size(); ++r) {
      used[r][picks[r]] = true;
      const CollectiveCall& call = perRank[r][picks[r]];
      c.start.push_back(call.start);
      c.end.push_back(call.end);
      c.batch.push_back(call.batch);
    }
    m.calls.push_back(std::move(c));
  }
  if (m.calls.size() < most)
    m.note = std::to_string(m.calls.size()) + " collectives are found on every rank (the same type, ending within " +
             std::to_string(windowNs / 1000) + " µs of each other); the ranks recorded up to " +
             std::to_string(most) + " (the rest fall at the traces' edges or on some ranks only)";
  return m;
}

}  // namespace pipescope
