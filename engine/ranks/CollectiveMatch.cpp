#include "ranks/CollectiveMatch.h"

#include <algorithm>
#include <cctype>

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

CollectiveMatch matchCollectives(const std::vector<std::vector<CollectiveCall>>& perRank) {
  CollectiveMatch m;
  if (perRank.empty()) return m;
  std::size_t common = perRank.front().size(), most = 0;
  for (const auto& r : perRank) {
    common = std::min(common, r.size());
    most = std::max(most, r.size());
  }
  for (std::size_t k = 0; k < common; ++k) {
    for (std::size_t r = 1; r < perRank.size(); ++r) {
      if (perRank[r][k].type != perRank[0][k].type) {
        m.note = "collective " + std::to_string(k + 1) + " differs between ranks (" + perRank[0][k].type +
                 " on the first, " + perRank[r][k].type + " on rank position " + std::to_string(r) +
                 "): the first " + std::to_string(k) + " are matched";
        return m;
      }
    }
    MatchedCollective c;
    c.type = perRank[0][k].type;
    c.bytes = perRank[0][k].bytes;
    for (const auto& r : perRank) {
      c.start.push_back(r[k].start);
      c.end.push_back(r[k].end);
      c.batch.push_back(r[k].batch);
    }
    m.calls.push_back(std::move(c));
  }
  if (common < most)
    m.note = "the ranks recorded " + std::to_string(common) + " to " + std::to_string(most) +
             " collectives: the first " + std::to_string(common) + " are matched";
  return m;
}

}  // namespace pipescope
