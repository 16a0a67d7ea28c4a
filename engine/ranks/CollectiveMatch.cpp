#include "ranks/CollectiveMatch.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
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
    // Only the first four letters matter: kernel names run to hundreds of characters.
    const bool nccl = name.size() >= 4 && std::equal(name.begin(), name.begin() + 4, "nccl", [](char a, char b) {
                        return std::tolower(static_cast<unsigned char>(a)) == b;
                      });
    return nccl ? name.substr(0, std::min<std::size_t>(name.size(), 48)) : std::string();
  }
  std::size_t to = from;
  while (to < name.size() && name[to] != '_' && name[to] != '(' && name[to] != '<') ++to;
  return name.substr(from, to - from);
}

bool isRootedCollective(const std::string& type) {
  return type == "Broadcast" || type == "Reduce" || type == "Gather" || type == "Scatter";
}

std::vector<CollectiveCall> collectiveCalls(const Trace& trace, std::int64_t shiftNs, int device) {
  const auto names = trace.names();
  const auto lanes = trace.lanes();
  std::vector<CollectiveCall> out;
  // Each name's type, worked out once: a trace has thousands of kernels and few names.
  std::vector<std::string> typeOfName(names.size());
  std::vector<bool> typed(names.size(), false);
  trace.ops().snapshot().forEach([&](const Op& op) {
    if (op.kind != OpKind::Collective && op.kind != OpKind::Kernel) return;
    if (device >= 0 && (op.lane >= lanes.size() || lanes[op.lane].device != device)) return;
    // A Collective op on a communicator lane is the call as a whole, not one GPU's kernel.
    if (op.lane < lanes.size() && lanes[op.lane].kind == LaneKind::Collective) return;
    const std::size_t nameIndex = op.name < names.size() ? op.name : 0;
    const std::string& name = names[nameIndex];
    if (!typed[nameIndex]) {
      typeOfName[nameIndex] = collectiveType(name);
      typed[nameIndex] = true;
    }
    std::string type = typeOfName[nameIndex];
    if (type.empty()) {
      if (op.kind != OpKind::Collective) return;
      type = name.empty() ? "collective" : name;
    }
    out.push_back(CollectiveCall{op.start + shiftNs, op.end + shiftNs, std::move(type), op.batch, op.bytes, op.lane});
  });
  std::stable_sort(out.begin(), out.end(),
                   [](const CollectiveCall& a, const CollectiveCall& b) { return a.start < b.start; });
  // Channels numbered by first use: a job's process groups start in the same order on
  // every rank, while the streams' ids differ from rank to rank.
  std::map<int, int> channelOfLane;
  for (CollectiveCall& c : out) c.channel = channelOfLane.emplace(c.channel, int(channelOfLane.size())).first->second;
  return out;
}

namespace {

bool sameCall(const CollectiveCall& a, const CollectiveCall& b) {
  // Calls recorded without their arguments carry no size: their type must do.
  return a.type == b.type && (a.bytes == 0 || b.bytes == 0 || a.bytes == b.bytes);
}

std::int64_t median(std::vector<std::int64_t>& v) {
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(mid), v.end());
  return v[mid];
}

// The shift of `other`'s sequence against `first`'s: see matchCollectives. Returns
// false when no shift makes the sequences agree.
bool bestShift(const std::vector<CollectiveCall>& first, const std::vector<std::size_t>& a,
               const std::vector<CollectiveCall>& other, const std::vector<std::size_t>& b, std::ptrdiff_t& shift) {
  const auto na = std::ptrdiff_t(a.size()), nb = std::ptrdiff_t(b.size());
  const auto most = std::ptrdiff_t(kMaxCollectiveShift);
  std::int64_t best = std::numeric_limits<std::int64_t>::max();
  std::vector<std::int64_t> diffs;
  for (std::ptrdiff_t s = -std::min(most, na - 1); s <= std::min(most, nb - 1); ++s) {
    const std::ptrdiff_t from = std::max<std::ptrdiff_t>(0, -s), to = std::min(na, nb - s);
    const std::ptrdiff_t pairs = to - from;
    // A shift that pairs only the sequences' edges says nothing.
    if (pairs <= 0 || 2 * pairs < std::min(na, nb)) continue;
    diffs.clear();
    for (std::ptrdiff_t i = from; i < to; ++i) {
      const CollectiveCall& x = first[a[std::size_t(i)]];
      const CollectiveCall& y = other[b[std::size_t(i + s)]];
      if (sameCall(x, y)) diffs.push_back(std::llabs(x.end - y.end));
    }
    if (double(diffs.size()) < kMinTypeAgreement * double(pairs)) continue;
    const std::int64_t m = median(diffs);
    if (m < best) best = m, shift = s;
  }
  return best != std::numeric_limits<std::int64_t>::max();
}

}  // namespace

CollectiveMatch matchCollectives(const std::vector<std::vector<CollectiveCall>>& perRank) {
  CollectiveMatch m;
  if (perRank.empty()) return m;
  const std::size_t n = perRank.size();
  // Per rank and channel: the calls' positions in start order.
  std::vector<std::map<int, std::vector<std::size_t>>> channels(n);
  std::size_t most = 0;
  for (std::size_t r = 0; r < n; ++r) {
    most = std::max(most, perRank[r].size());
    for (std::size_t i = 0; i < perRank[r].size(); ++i) channels[r][perRank[r][i].channel].push_back(i);
  }
  std::vector<std::string> problems;
  for (const auto& [channel, own] : channels[0]) {
    std::vector<std::ptrdiff_t> shift(n, 0);
    bool everywhere = true;
    for (std::size_t r = 1; r < n && everywhere; ++r) {
      auto it = channels[r].find(channel);
      everywhere = it != channels[r].end() && bestShift(perRank[0], own, perRank[r], it->second, shift[r]);
      if (!everywhere)
        problems.push_back("the collectives of the first rank's NCCL stream " + std::to_string(channel + 1) +
                           " do not follow the same sequence on rank position " + std::to_string(r));
    }
    if (!everywhere) continue;
    for (std::size_t i = 0; i < own.size(); ++i) {
      MatchedCollective c;
      const CollectiveCall& first = perRank[0][own[i]];
      c.type = first.type;
      c.bytes = first.bytes;
      for (std::size_t r = 0; r < n; ++r) {
        const std::vector<std::size_t>& seq = channels[r].find(channel)->second;
        const std::ptrdiff_t j = std::ptrdiff_t(i) + shift[r];
        if (j < 0 || j >= std::ptrdiff_t(seq.size()) || !sameCall(first, perRank[r][seq[std::size_t(j)]])) break;
        const CollectiveCall& call = perRank[r][seq[std::size_t(j)]];
        c.start.push_back(call.start);
        c.end.push_back(call.end);
        c.batch.push_back(call.batch);
      }
      if (c.start.size() == n) m.calls.push_back(std::move(c));
    }
  }
  std::stable_sort(m.calls.begin(), m.calls.end(),
                   [](const MatchedCollective& a, const MatchedCollective& b) { return a.start[0] < b.start[0]; });
  if (m.calls.size() < most) {
    m.note = std::to_string(m.calls.size()) +
             " collectives are found on every rank (the same sequence of types and sizes on each NCCL stream); the "
             "ranks recorded up to " +
             std::to_string(most) + " (the rest fall at the traces' edges or on some ranks only)";
    for (const auto& p : problems) m.note += "; " + p;
  }
  return m;
}

}  // namespace pipescope
