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

namespace {

// A call's place in its rank's sequence: the iteration it belongs to, its type and how
// many of that type came before it in that iteration. Ranks start and stop recording
// at slightly different points (the first rank may catch the end of the step before),
// so positions in the whole trace differ; positions within an iteration do not.
struct CallKey {
  std::int32_t batch;
  std::string type;
  std::size_t ordinal;
  bool operator<(const CallKey& o) const {
    if (batch != o.batch) return batch < o.batch;
    if (type != o.type) return type < o.type;
    return ordinal < o.ordinal;
  }
};

std::map<CallKey, std::size_t> keysOf(const std::vector<CollectiveCall>& calls) {
  std::map<CallKey, std::size_t> out;
  std::map<std::pair<std::int32_t, std::string>, std::size_t> seen;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const auto& c = calls[i];
    out.emplace(CallKey{c.batch, c.type, seen[{c.batch, c.type}]++}, i);
  }
  return out;
}

}  // namespace

CollectiveMatch matchCollectives(const std::vector<std::vector<CollectiveCall>>& perRank) {
  CollectiveMatch m;
  if (perRank.empty()) return m;
  std::vector<std::map<CallKey, std::size_t>> keys;
  std::size_t most = 0;
  for (const auto& r : perRank) {
    keys.push_back(keysOf(r));
    most = std::max(most, r.size());
  }
  // Calls outside every iteration (batch -1) are matched only when no call is in one:
  // they are where the traces' edges differ.
  bool anyInIteration = false;
  for (const auto& [key, i] : keys.front()) anyInIteration = anyInIteration || key.batch >= 0;
  std::vector<std::pair<std::int64_t, MatchedCollective>> found;
  for (const auto& [key, first] : keys.front()) {
    if (anyInIteration && key.batch < 0) continue;
    MatchedCollective c;
    c.type = key.type;
    c.bytes = perRank.front()[first].bytes;
    bool everywhere = true;
    for (std::size_t r = 0; r < perRank.size() && everywhere; ++r) {
      auto it = keys[r].find(key);
      if (it == keys[r].end()) {
        everywhere = false;
        break;
      }
      const CollectiveCall& call = perRank[r][it->second];
      c.start.push_back(call.start);
      c.end.push_back(call.end);
      c.batch.push_back(call.batch);
    }
    if (everywhere) found.emplace_back(perRank.front()[first].start, std::move(c));
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& f : found) m.calls.push_back(std::move(f.second));
  if (m.calls.size() < most)
    m.note = std::to_string(m.calls.size()) + " collectives are found on every rank (in the same iteration, of the "
             "same type, in the same order); the ranks recorded up to " + std::to_string(most) +
             " (the rest fall at the traces' edges or on some ranks only)";
  return m;
}

}  // namespace pipescope
