#include "io/IterationDetection.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

namespace pipescope {

namespace {

constexpr std::int64_t kForever = std::numeric_limits<std::int64_t>::max();

struct Range {
  std::uint32_t op;
  std::int64_t start, end;
  std::int16_t stream;
};

const std::string& nameOf(const Op& op, const std::vector<std::string>& names) {
  static const std::string empty;
  return op.name < names.size() ? names[op.name] : empty;
}

bool isUserRange(const Op& op) { return op.kind == OpKind::Annotation && (op.flags & kOpUserRange) != 0; }
bool isGpuSide(const Op& op) { return op.stream != kNoStream; }

// Ranges not inside an earlier range (of the same stream, for GPU ranges): the
// outermost user ranges, in start order, longest first on ties.
std::vector<Range> outermost(std::vector<Range> ranges) {
  std::stable_sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
  std::vector<Range> out;
  std::map<std::int16_t, std::int64_t> openUntil;  // per stream: the end of the last kept range
  for (const Range& r : ranges) {
    auto [it, inserted] = openUntil.try_emplace(r.stream, std::numeric_limits<std::int64_t>::min());
    // Nested in a kept range; one that only overlaps (another thread's) is kept.
    if (!inserted && r.end <= it->second) continue;
    it->second = std::max(it->second, r.end);
    out.push_back(r);
  }
  return out;
}

// The name that starts an iteration in a sequence of range names: the first name of the
// shortest repeating period (after a short prologue), else the earliest of the most
// frequent names. Empty when no name occurs twice.
std::string periodStart(const std::vector<std::string>& seq) {
  const std::size_t n = seq.size();
  const std::size_t maxPrologue = std::min<std::size_t>(8, n / 2);
  for (std::size_t offset = 0; offset <= maxPrologue; ++offset) {
    const std::size_t len = n - offset;
    for (std::size_t p = 1; p * 2 <= len; ++p) {
      bool periodic = true;
      for (std::size_t j = offset; j + p < n && periodic; ++j) periodic = seq[j] == seq[j + p];
      if (periodic) return seq[offset];
    }
  }
  std::unordered_map<std::string, std::size_t> count;
  for (const auto& s : seq) ++count[s];
  std::string best;
  std::size_t bestCount = 1;
  for (const auto& s : seq)  // in order: ties go to the earliest name
    if (count[s] > bestCount) best = s, bestCount = count[s];
  return best;
}

std::string nameList(const std::vector<Range>& ranges, const std::vector<Op>& ops,
                     const std::vector<std::string>& names) {
  std::vector<std::string> seen;
  for (const Range& r : ranges) {
    const std::string& n = nameOf(ops[r.op], names);
    if (std::find(seen.begin(), seen.end(), n) == seen.end()) seen.push_back(n);
    if (seen.size() == 8) break;
  }
  std::string s;
  for (const auto& n : seen) s += (s.empty() ? "'" : ", '") + n + "'";
  return s;
}

// Iteration windows from host markers: [start_i, start_{i+1}); the last one runs to
// `lastEnd` (its own end for ProfilerStep ranges, the end of the trace otherwise).
struct Windows {
  std::vector<std::int64_t> starts;
  std::int64_t lastEnd = kForever;
  std::int32_t at(std::int64_t t) const {
    auto it = std::upper_bound(starts.begin(), starts.end(), t);
    if (it == starts.begin()) return kNoBatch;
    const auto i = std::int32_t(it - starts.begin() - 1);
    if (std::size_t(i) + 1 == starts.size() && t >= lastEnd) return kNoBatch;
    return i;
  }
};

}  // namespace

IterationInfo assignIterations(std::vector<Op>& ops, const std::vector<std::string>& names,
                               const IterationOptions& options) {
  IterationInfo info;
  for (Op& op : ops) op.batch = kNoBatch;

  std::vector<Range> hostRanges, gpuRanges, steps;
  for (std::uint32_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    if (op.kind != OpKind::Annotation || op.end < op.start) continue;
    const Range r{i, op.start, op.end, op.stream};
    if (!isGpuSide(op) && nameOf(op, names).rfind("ProfilerStep#", 0) == 0) steps.push_back(r);
    if (!isUserRange(op)) continue;
    (isGpuSide(op) ? gpuRanges : hostRanges).push_back(r);
  }

  // Choose the markers.
  std::vector<Range> markers;
  bool gpuMarkers = false, stepMarkers = false;
  auto named = [&](const std::vector<Range>& from, const std::string& name) {
    std::vector<Range> out;
    for (const Range& r : from)
      if (nameOf(ops[r.op], names) == name) out.push_back(r);
    return out;
  };
  if (!options.marker.empty()) {
    info.source = "--iteration-marker";
    info.marker = options.marker;
    markers = named(hostRanges, options.marker);
    if (markers.empty()) {
      for (const Range& r : steps)  // ProfilerStep ranges may be named too
        if (nameOf(ops[r.op], names) == options.marker) markers.push_back(r);
    }
    if (markers.empty()) {
      markers = named(gpuRanges, options.marker);
      gpuMarkers = !markers.empty();
    }
    if (markers.empty()) {
      std::vector<Range> all = hostRanges;
      all.insert(all.end(), gpuRanges.begin(), gpuRanges.end());
      info.why = "no range is named '" + options.marker + "' (the iteration marker asked for); " +
                 (all.empty() ? std::string("the trace has no user ranges (record_function / NVTX)")
                              : "the trace's user ranges are " + nameList(outermost(all), ops, names));
      return info;
    }
  } else if (!steps.empty()) {
    info.source = "ProfilerStep#N ranges";
    info.marker = "ProfilerStep#*";
    markers = steps;
    stepMarkers = true;
  } else {
    for (int side = 0; side < 2 && markers.empty(); ++side) {
      const auto& from = side == 0 ? hostRanges : gpuRanges;
      if (from.empty()) continue;
      const std::vector<Range> top = outermost(from);
      // GPU side: the sequence of the stream with the most ranges (streams interleave).
      std::map<std::int16_t, std::vector<std::string>> seqs;
      for (const Range& r : top) seqs[side == 0 ? kNoStream : r.stream].push_back(nameOf(ops[r.op], names));
      const std::vector<std::string>* seq = nullptr;
      for (const auto& [stream, v] : seqs)
        if (seq == nullptr || v.size() > seq->size()) seq = &v;
      const std::string marker = periodStart(*seq);
      if (marker.empty()) {
        info.why = std::string(side == 0 ? "the host's" : "the GPU's") + " user ranges (" + nameList(top, ops, names) +
                   ") do not repeat, so no iteration could be told apart";
        continue;
      }
      info.source = side == 0 ? "repeating host user ranges" : "repeating GPU user ranges";
      info.marker = marker;
      for (const Range& r : top)
        if (nameOf(ops[r.op], names) == marker) markers.push_back(r);
      gpuMarkers = side == 1;
    }
    if (markers.empty()) {
      if (info.why.empty())
        info.why = "the trace has no ProfilerStep#N ranges and no user ranges (record_function / NVTX) to find "
                   "iterations from";
      info.why += "; name the range that starts an iteration with --iteration-marker NAME (the Open dialog's "
                  "'Iteration marker' in the app), or record with torch.profiler's schedule and prof.step()";
      info.source.clear();
      return info;
    }
  }
  std::stable_sort(markers.begin(), markers.end(), [](const Range& a, const Range& b) { return a.start < b.start; });
  info.count = std::int64_t(markers.size());  // < 2^31: a trace holds at most kMaxTraceOps ops

  // Host windows (host markers), or GPU marker starts per stream (GPU markers).
  Windows windows;
  for (const Range& r : markers) windows.starts.push_back(r.start);
  if (stepMarkers) windows.lastEnd = markers.back().end;
  std::map<std::int16_t, std::vector<std::pair<std::int64_t, std::int32_t>>> gpuMarks;  // stream -> (start, batch)
  if (gpuMarkers)
    for (std::size_t i = 0; i < markers.size(); ++i) gpuMarks[markers[i].stream].emplace_back(markers[i].start, i);
  auto gpuMarkerBatch = [&](const Op& op) -> std::int32_t {
    auto it = gpuMarks.find(op.stream);
    if (it == gpuMarks.end()) return windows.at(op.start);
    const auto& v = it->second;
    auto at = std::upper_bound(v.begin(), v.end(), std::make_pair(op.start, std::numeric_limits<std::int32_t>::max()));
    return at == v.begin() ? kNoBatch : std::prev(at)->second;
  };

  // Host ops first (the launches), then GPU ops through their launch's correlation id.
  std::unordered_map<std::uint32_t, std::uint32_t> launchOf;  // correlation -> host op
  std::unordered_map<std::uint32_t, std::int32_t> gpuBatchOf;  // correlation -> GPU op's batch (GPU markers)
  if (!gpuMarkers) {
    for (std::uint32_t i = 0; i < ops.size(); ++i) {
      Op& op = ops[i];
      if (isGpuKind(op.kind) || (op.kind == OpKind::Annotation && isGpuSide(op))) continue;
      op.batch = windows.at(op.start);
      if (op.correlation != 0) launchOf.emplace(op.correlation, i);
    }
    for (Op& op : ops) {
      if (!isGpuKind(op.kind)) continue;
      auto it = op.correlation != 0 ? launchOf.find(op.correlation) : launchOf.end();
      op.batch = it != launchOf.end() ? ops[it->second].batch : windows.at(op.start);
    }
  } else {
    for (Op& op : ops) {
      if (!isGpuKind(op.kind) && !(op.kind == OpKind::Annotation && isGpuSide(op))) continue;
      op.batch = gpuMarkerBatch(op);
      if (isGpuKind(op.kind) && op.correlation != 0) gpuBatchOf.emplace(op.correlation, op.batch);
    }
    for (Op& op : ops) {
      if (isGpuKind(op.kind) || op.kind == OpKind::Annotation || op.correlation == 0) continue;
      auto it = gpuBatchOf.find(op.correlation);
      if (it != gpuBatchOf.end()) op.batch = it->second;
    }
  }
  return info;
}

}  // namespace pipescope
