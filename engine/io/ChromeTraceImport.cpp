#include "io/ChromeTraceImport.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "io/ChromeTraceWriter.h"
#include "io/IterationDetection.h"
#include "io/TraceAssembler.h"
#include "io/TraceMetadataJson.h"

namespace pipescope {

namespace {

using nlohmann::json;

[[noreturn]] void fail(const ChromeEvents& ev, const std::string& what) {
  throw TraceFileError("'" + ev.source + "': " + what);
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

// ---------------------------------------------------------------------------------
// pipescope's own export: every field is in args, lanes are named by metadata.

std::shared_ptr<Trace> importPipescopeExport(const ChromeEvents& ev) {
  const json& meta = ev.pipescope;
  TraceAssembler out(ev.source);
  TraceTables tables;
  try {
    const std::int64_t version = requireInt(meta, "version", "otherData.pipescope", 0, std::numeric_limits<int>::max());
    if (version > kChromeExportVersion)
      fail(ev, "exported by a newer pipescope (Chrome export version " + std::to_string(version) +
                   "); this build reads versions up to " + std::to_string(kChromeExportVersion) +
                   ". Update pipescope to open it.");
    // Lanes: one per distinct pipescope_lane id among the named threads; their numbering
    // (0..n-1) and uniqueness are checked with the table (TraceAssembler::declareTables).
    std::map<std::int32_t, Lane> byId;
    for (const auto& t : ev.threads) {
      if (t.pipescopeLane < 0) continue;
      auto kind = parseLaneKind(t.laneKind);
      if (!kind) fail(ev, "thread \"" + t.name + "\": unknown lane kind \"" + t.laneKind + "\"");
      Lane l{std::uint16_t(t.pipescopeLane), *kind, t.name,
             int(std::clamp<std::int64_t>(t.laneIndex, INT32_MIN, INT32_MAX)),
             t.laneDevice ? int(std::clamp<std::int64_t>(*t.laneDevice, kSharedLane - 1, kMaxTraceDevices))
                          : defaultLaneDevice(*kind)};
      auto [it, inserted] = byId.emplace(t.pipescopeLane, l);
      if (!inserted && (it->second.kind != l.kind || it->second.index != l.index || it->second.device != l.device))
        fail(ev, "lane " + std::to_string(t.pipescopeLane) + " is described twice, differently");
      // Sub-threads of a lane are named "<lane> (2)"; keep the first (main) thread's name.
      if (!inserted && l.name.size() < it->second.name.size()) it->second.name = l.name;
    }
    for (const auto& [id, l] : byId) tables.lanes.push_back(l);
    tables.names =
        namesFromJson(requireField(meta, "names", "otherData.pipescope"), "otherData.pipescope.names");
    applyRunInfo(
        out.trace(), configHistoryFromJson(requireField(meta, "config_history", "otherData.pipescope")),
        devicesFromJson(meta, "otherData.pipescope", deviceFromJson(requireField(meta, "device", "otherData.pipescope"))),
        outcomeFromJson(requireField(meta, "outcome", "otherData.pipescope")),
        requireInt(meta, "completed_batches", "otherData.pipescope", 0, std::numeric_limits<std::int64_t>::max()));
  } catch (const std::invalid_argument& e) {
    fail(ev, e.what());
  }
  out.declareTables(tables);
  const auto& names = tables.names;
  // Event names -> the exported names table (0 = the op kind's own name).
  std::unordered_map<std::uint32_t, std::int32_t> nameOf;
  {
    std::unordered_map<std::string, std::uint16_t> index;
    for (std::size_t i = 1; i < names.size(); ++i) index.emplace(names[i], std::uint16_t(i));
    for (std::uint32_t i = 0; i < ev.strings.size(); ++i) {
      auto it = index.find(ev.strings[i]);
      nameOf[i] = it == index.end() ? -1 : it->second;
    }
  }
  for (const ChromeSlice& s : ev.slices) {
    if (s.mirror) continue;
    const ChromeThread& t = ev.threads[s.thread];
    if (t.pipescopeLane < 0)
      fail(ev, "event " + std::to_string(s.eventIndex) + ": on a thread without a pipescope lane (\"" + t.pid +
                   "\"/\"" + t.tid + "\")");
    if (s.kind < 0) fail(ev, "event " + std::to_string(s.eventIndex) + ": missing or unknown \"args.kind\"");
    Op op;
    op.kind = OpKind(s.kind);
    op.lane = std::uint16_t(t.pipescopeLane);
    op.start = s.ts;
    op.end = s.ts + s.dur;
    op.ready = s.ts - s.engineWait;
    op.submit = op.ready - s.streamWait;
    op.bytes = s.bytes < 0 ? 0 : std::uint64_t(s.bytes);
    op.batch = s.batch;
    op.correlation = s.correlation < 0 ? 0 : std::uint32_t(s.correlation);
    op.stream =
        s.stream < 0 || s.stream > std::numeric_limits<std::int16_t>::max() ? kNoStream : std::int16_t(s.stream);
    op.flags = s.flags;
    // Any id from the file is a reference the assembler checks (kNoLane is "none").
    if (s.engineLane >= 0) op.engineLane = std::uint16_t(std::min<std::int32_t>(s.engineLane, kNoLane - 1));
    const std::int32_t known = nameOf[s.name];
    op.name = known >= 0 ? std::uint16_t(known) : out.internName(ev.strings[s.name], op.kind);
    out.addOp(op, OpOrigin{"event", s.eventIndex});
  }
  return out.finish();
}

// ---------------------------------------------------------------------------------
// Any other Chrome trace, PyTorch profiler traces in particular.

enum class SliceRole : std::uint8_t { Gpu, Api, Host };

struct Classified {
  SliceRole role = SliceRole::Host;
  OpKind kind = OpKind::Annotation;
  std::uint8_t flags = 0;
};

Classified classify(const std::string& cat, const std::string& name) {
  const std::string c = lower(cat);
  Classified r;
  if (c == "user_annotation" || c == "gpu_user_annotation" || c == "nvtx") r.flags |= kOpUserRange;
  if (c == "cpu_op" || c == "user_annotation" || c == "python_function" || c == "nvtx") r.flags |= kOpHostWork;
  if (c == "kernel") {
    r.role = SliceRole::Gpu;
    // NCCL's kernels are the collectives as they ran on this GPU (their SMs wait in
    // them for the other ranks): communication, not computation.
    r.kind = name.rfind("nccl", 0) == 0 ? OpKind::Collective : OpKind::Kernel;
  } else if (c == "gpu_memcpy" || c == "memcpy") {
    r.role = SliceRole::Gpu;
    if (name.find("HtoD") != std::string::npos)
      r.kind = OpKind::CopyH2D;
    else if (name.find("DtoH") != std::string::npos)
      r.kind = OpKind::CopyD2H;
    else
      r.kind = OpKind::Kernel;  // device-to-device copies run on the SMs
    if (name.find("Pageable") != std::string::npos) r.flags |= kOpPageable;
  } else if (c == "gpu_memset" || c == "memset") {
    r.role = SliceRole::Gpu;
    r.kind = OpKind::Memset;
  } else if (c == "cuda_runtime" || c == "cuda_driver" || c == "runtime" || c == "driver") {
    r.role = SliceRole::Api;
    // cudaStreamSynchronize, cudaDeviceSynchronize, cuCtxSynchronize...: the host waits.
    r.kind = name.find("Synchronize") != std::string::npos ? OpKind::HostSync : OpKind::ApiCall;
  }
  return r;
}

struct GpuKey {
  std::string pid;
  std::int64_t stream;
  bool operator<(const GpuKey& o) const { return pid != o.pid ? pid < o.pid : stream < o.stream; }
};

std::string threadLabel(const ChromeEvents& ev, const ChromeThread& t) {
  if (!trimmed(t.name).empty()) return trimmed(t.name);
  auto plain = [](const std::string& id) { return id.rfind("s:", 0) == 0 ? id.substr(2) : id; };
  return "pid " + plain(t.pid) + " tid " + plain(t.tid);
  (void)ev;
}

/// Spreads overlapping slices over sub-lanes (first fit in start order): nested
/// ranges stack like a flame graph and no two ops on one lane overlap.
std::vector<std::uint8_t> subLanes(const std::vector<std::uint32_t>& order, const std::vector<ChromeSlice>& slices,
                                   std::uint8_t& used) {
  std::vector<std::uint8_t> out(order.size());
  std::vector<std::int64_t> ends;
  constexpr std::size_t kMaxDepth = 32;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const ChromeSlice& s = slices[order[i]];
    std::size_t d = 0;
    while (d < ends.size() && ends[d] > s.ts) ++d;
    if (d == ends.size()) {
      if (ends.size() < kMaxDepth)
        ends.push_back(0);
      else
        d = kMaxDepth - 1;  // deeper nesting shares the last lane
    }
    ends[d] = std::max(ends[d], s.ts + s.dur);
    out[i] = std::uint8_t(d);
  }
  used = std::uint8_t(std::max<std::size_t>(1, ends.size()));
  return out;
}

// record_shapes=True: the batch is the first dimension of a layer's input. The most
// common one over the layers (convolutions, linear layers, matrix products) that
// recorded an input of rank >= 2; other ops' shapes (weights, scalars) say nothing.
void batchFromInputShapes(const ChromeEvents& ev, IterationInfo& it) {
  static const char* const kLayers[] = {"aten::conv", "aten::linear", "aten::addmm", "aten::matmul", "aten::bmm"};
  std::map<std::int64_t, std::int64_t> votes;
  std::map<std::int64_t, std::string> example;
  for (const ChromeSlice& s : ev.slices) {
    if (s.inputRank < 2 || s.inputFirstDim <= 0) continue;
    const std::string& name = ev.strings[s.name];
    bool layer = false;
    for (const char* p : kLayers) layer = layer || name.rfind(p, 0) == 0;
    if (!layer) continue;
    ++votes[s.inputFirstDim];
    example.emplace(s.inputFirstDim, name);
  }
  if (votes.empty()) return;
  auto best = votes.begin();
  for (auto i = votes.begin(); i != votes.end(); ++i)
    if (i->second > best->second) best = i;
  it.samplesPerIteration = best->first;
  it.samplesSource = "input shapes: first dimension of " + std::to_string(best->second) + " layer inputs (e.g. " +
                     example[best->first] + ")";
}

// PyTorch's layout: a GPU op's thread id is its stream.
std::int64_t tidNumber(const std::string& tid) {
  char* end = nullptr;
  const long long v = std::strtoll(tid.c_str(), &end, 10);
  return (end != nullptr && *end == '\0' && v >= 0 && v <= INT32_MAX) ? v : 0;
}

// distributedInfo (PyTorch, a job of several ranks): read as a hint, an odd value is
// left out rather than refused, since the events are what the file is opened for.
RankInfo rankInfo(const ChromeEvents& ev, std::int64_t origin) {
  RankInfo r;
  r.source = ev.source;
  r.clockOriginNs = ev.baseTimeNs > std::numeric_limits<std::int64_t>::max() / 2 - origin ? origin : ev.baseTimeNs + origin;
  const json& d = ev.distributedInfo;
  if (!d.is_object()) return r;
  auto integer = [&](const char* key, std::int64_t hi) -> std::int64_t {
    auto it = d.find(key);
    if (it == d.end() || !it->is_number_integer()) return -1;
    const std::int64_t v = it->get<std::int64_t>();
    return v >= 0 && v <= hi ? v : -1;
  };
  constexpr std::int64_t kMaxRanks = 1 << 20;
  r.rank = int(integer("rank", kMaxRanks - 1));
  r.worldSize = int(std::max<std::int64_t>(0, integer("world_size", kMaxRanks)));
  if (auto it = d.find("backend"); it != d.end() && it->is_string()) r.backend = it->get<std::string>().substr(0, 64);
  if (auto it = d.find("pg_config"); it != d.end() && it->is_array()) {
    for (const json& pg : *it) {
      if (!pg.is_object() || r.groups.size() > 512) continue;
      std::string name;
      for (const char* key : {"pg_desc", "pg_name"})
        if (name.empty() && pg.contains(key) && pg[key].is_string()) name = pg[key].get<std::string>().substr(0, 64);
      std::string members;
      if (pg.contains("ranks") && pg["ranks"].is_array())
        for (const json& m : pg["ranks"])
          if (m.is_number_integer() && members.size() < 256)
            members += (members.empty() ? "" : ", ") + std::to_string(m.get<std::int64_t>());
      r.groups += (r.groups.empty() ? "" : "; ") + (name.empty() ? std::string("group") : name) + " [" + members + "]";
    }
  }
  return r;
}

std::shared_ptr<Trace> importGeneric(ChromeEvents& ev, const ImportOptions& options) {
  auto& slices = ev.slices;
  if (slices.empty())
    fail(ev, "no timed events (complete 'X' or begin/end 'B'/'E' events) among " + std::to_string(ev.eventCount) +
                 " events; nothing to show");
  std::int64_t origin = std::numeric_limits<std::int64_t>::max();
  for (const auto& s : slices) origin = std::min(origin, s.ts);

  std::vector<Classified> cls(slices.size());
  std::vector<char> gpuPid(ev.threads.size(), 0);
  std::map<std::string, bool> gpuPids;
  for (std::size_t i = 0; i < slices.size(); ++i) {
    cls[i] = classify(ev.strings[slices[i].cat], ev.strings[slices[i].name]);
    if (cls[i].role == SliceRole::Gpu) gpuPids[ev.threads[slices[i].thread].pid] = true;
  }
  const bool multiGpu = gpuPids.size() > 1;

  TraceAssembler out(ev.source);
  Trace* trace = &out.trace();

  // Host lanes, thread by thread in the file's sort order.
  std::vector<std::uint32_t> threadOrder(ev.threads.size());
  for (std::uint32_t i = 0; i < threadOrder.size(); ++i) threadOrder[i] = i;
  auto processSort = [&](const std::string& pid) -> std::int64_t {
    for (const auto& p : ev.processes)
      if (p.pid == pid) return p.sortIndex;
    return 0;
  };
  std::stable_sort(threadOrder.begin(), threadOrder.end(), [&](std::uint32_t a, std::uint32_t b) {
    const auto pa = processSort(ev.threads[a].pid), pb = processSort(ev.threads[b].pid);
    if (pa != pb) return pa < pb;
    return ev.threads[a].sortIndex < ev.threads[b].sortIndex;
  });
  // Per thread: host slices by role, sorted by start (longest first on ties, so parents precede children).
  std::vector<std::vector<std::uint32_t>> hostByThread(ev.threads.size() * 2);
  for (std::uint32_t i = 0; i < slices.size(); ++i) {
    if (cls[i].role == SliceRole::Gpu) continue;
    hostByThread[slices[i].thread * 2 + (cls[i].role == SliceRole::Api ? 1 : 0)].push_back(i);
  }
  // Nesting levels per thread and role first, so the number of lanes is known (and
  // checked) before any is made: a file with too many threads fails at once.
  std::vector<std::vector<std::uint8_t>> depthOf(hostByThread.size());
  std::vector<std::uint8_t> levelsOf(hostByThread.size(), 0);
  std::size_t lanesNeeded = 0;
  for (std::size_t tr = 0; tr < hostByThread.size(); ++tr) {
    auto& list = hostByThread[tr];
    if (list.empty()) continue;
    std::stable_sort(list.begin(), list.end(), [&](std::uint32_t a, std::uint32_t b) {
      if (slices[a].ts != slices[b].ts) return slices[a].ts < slices[b].ts;
      return slices[a].dur > slices[b].dur;
    });
    depthOf[tr] = subLanes(list, slices, levelsOf[tr]);
    lanesNeeded += levelsOf[tr];
  }
  std::map<GpuKey, std::vector<std::uint32_t>> byStream;
  for (std::uint32_t i = 0; i < slices.size(); ++i) {
    if (cls[i].role != SliceRole::Gpu) continue;
    const ChromeThread& t = ev.threads[slices[i].thread];
    std::int64_t stream = slices[i].stream;
    if (stream < 0) stream = tidNumber(t.tid);  // no args.stream
    byStream[GpuKey{t.pid, stream}].push_back(i);
  }
  out.reserveLanes(lanesNeeded + byStream.size() + 3 * gpuPids.size());

  std::vector<std::uint16_t> laneOf(slices.size(), kNoLane);
  int hostOtherIndex = 0, submitIndex = 0;
  for (std::uint32_t t : threadOrder) {
    const std::string label = threadLabel(ev, ev.threads[t]);
    const bool onGpu = gpuPids.count(ev.threads[t].pid) > 0;
    for (int role = 0; role < 2; ++role) {
      const auto& list = hostByThread[t * 2 + role];
      if (list.empty()) continue;
      const std::uint8_t used = levelsOf[t * 2 + role];
      const auto& depth = depthOf[t * 2 + role];
      std::vector<std::uint16_t> ids(used);
      for (std::uint8_t d = 0; d < used; ++d) {
        std::string name = role == 1 ? label + " · CUDA API" : (onGpu ? label + " · annotations" : label);
        if (d > 0) name += " · " + std::to_string(d + 1);
        ids[d] = role == 1 ? out.addLane(LaneKind::HostSubmit, submitIndex++, name)
                           : out.addLane(LaneKind::HostOther, hostOtherIndex++, name);
      }
      for (std::size_t k = 0; k < list.size(); ++k) laneOf[list[k]] = ids[depth[k]];
    }
  }

  // Stream lanes, then engine lanes per GPU.
  std::map<GpuKey, std::uint16_t> streamLane;
  std::map<GpuKey, std::int16_t> streamNumber;
  int streamIndex = 0;
  std::int16_t compact = 0;
  bool allSmall = true;
  for (const auto& [key, list] : byStream)
    allSmall = allSmall && key.stream <= std::numeric_limits<std::int16_t>::max();
  for (const auto& [key, list] : byStream) {
    const std::string plainPid = key.pid.rfind("s:", 0) == 0 ? key.pid.substr(2) : key.pid;
    const std::string name =
        (multiGpu ? "GPU " + plainPid + " " : std::string()) + "stream " + std::to_string(key.stream);
    streamLane[key] = out.addLane(LaneKind::Stream, streamIndex++, name);
    streamNumber[key] = allSmall ? std::int16_t(key.stream) : compact++;
  }
  // The stream number a GPU-side user range covers (the numbering of the GPU ops).
  auto gpuStreamOf = [&](const std::string& pid, std::int64_t stream) -> std::int16_t {
    auto it = streamNumber.find(GpuKey{pid, stream});
    if (it != streamNumber.end()) return it->second;
    return std::int16_t(std::clamp<std::int64_t>(stream, 0, std::numeric_limits<std::int16_t>::max()));
  };
  struct EngineLanes {
    std::uint16_t h2d = kNoLane, d2h = kNoLane, compute = kNoLane;
  };
  std::map<std::string, EngineLanes> engines;
  int engineIndex = 0;
  for (const auto& [pid, unused] : gpuPids) {
    (void)unused;
    const std::string plainPid = pid.rfind("s:", 0) == 0 ? pid.substr(2) : pid;
    const std::string suffix = multiGpu ? " (GPU " + plainPid + ")" : "";
    EngineLanes e;
    e.h2d = out.addLane(LaneKind::CopyEngineH2D, engineIndex, "H2D copy engine" + suffix);
    e.d2h = out.addLane(LaneKind::CopyEngineD2H, engineIndex, "D2H copy engine" + suffix);
    e.compute = out.addLane(LaneKind::ComputeEngine, engineIndex, "compute engine" + suffix);
    ++engineIndex;
    engines[pid] = e;
  }

  // Launch links: args.correlation first, flow events (s -> f) for the rest.
  std::unordered_map<std::int64_t, std::uint32_t> apiByCorrelation;
  std::int64_t maxCorrelation = 0;
  for (std::uint32_t i = 0; i < slices.size(); ++i) {
    if (slices[i].correlation > 0) maxCorrelation = std::max(maxCorrelation, slices[i].correlation);
    if (cls[i].role == SliceRole::Api && slices[i].correlation > 0) apiByCorrelation.emplace(slices[i].correlation, i);
  }
  if (!ev.flows.empty()) {
    // Slices per thread sorted by start, to find the slice a flow endpoint binds to.
    std::vector<std::vector<std::uint32_t>> perThread(ev.threads.size());
    for (std::uint32_t i = 0; i < slices.size(); ++i) perThread[slices[i].thread].push_back(i);
    for (auto& v : perThread)
      std::sort(v.begin(), v.end(), [&](std::uint32_t a, std::uint32_t b) { return slices[a].ts < slices[b].ts; });
    auto enclosing = [&](std::uint32_t thread, std::int64_t ts) -> std::int64_t {
      const auto& v = perThread[thread];
      auto it =
          std::upper_bound(v.begin(), v.end(), ts, [&](std::int64_t t, std::uint32_t s) { return t < slices[s].ts; });
      // Innermost slice covering ts: scan back a bounded number of candidates.
      for (int k = 0; k < 64 && it != v.begin(); ++k) {
        --it;
        if (slices[*it].ts + slices[*it].dur >= ts) return *it;
      }
      return -1;
    };
    std::unordered_map<std::string, std::int64_t> flowStart;
    for (const auto& f : ev.flows)
      if (f.phase == 's') flowStart[f.id] = enclosing(f.thread, f.ts);
    for (const auto& f : ev.flows) {
      if (f.phase != 'f') continue;
      auto it = flowStart.find(f.id);
      if (it == flowStart.end() || it->second < 0) continue;
      const std::int64_t target = enclosing(f.thread, f.ts);
      if (target < 0) continue;
      ChromeSlice& api = slices[std::size_t(it->second)];
      ChromeSlice& gpu = slices[std::size_t(target)];
      if (cls[std::size_t(target)].role != SliceRole::Gpu || gpu.correlation > 0) continue;
      if (api.correlation <= 0) {
        if (maxCorrelation >= std::numeric_limits<std::uint32_t>::max()) continue;
        api.correlation = ++maxCorrelation;
        apiByCorrelation.emplace(api.correlation, std::uint32_t(it->second));
      }
      gpu.correlation = api.correlation;
    }
  }

  // Ops. GPU ops of a stream in start order give the ready times.
  std::vector<Op> ops(slices.size());
  for (std::uint32_t i = 0; i < slices.size(); ++i) {
    const ChromeSlice& s = slices[i];
    Op& op = ops[i];
    op.kind = cls[i].kind;
    op.flags = cls[i].flags;
    op.start = s.ts - origin;
    op.end = op.start + s.dur;
    op.submit = op.ready = op.start;
    op.correlation = s.correlation > 0 && s.correlation <= std::numeric_limits<std::uint32_t>::max()
                         ? std::uint32_t(s.correlation)
                         : 0;
    op.name = out.internName(ev.strings[s.name], op.kind);
    if (cls[i].role != SliceRole::Gpu) {
      op.lane = laneOf[i];
      const ChromeThread& t = ev.threads[s.thread];
      if (gpuPids.count(t.pid) > 0) {
        op.flags &= std::uint8_t(~kOpHostWork);  // a range on the GPU's timeline: not host time
        if (op.flags & kOpUserRange) op.stream = gpuStreamOf(t.pid, s.stream >= 0 ? s.stream : tidNumber(t.tid));
      }
    } else {
      op.bytes = s.bytes > 0 ? std::uint64_t(s.bytes) : 0;
    }
  }
  for (auto& [key, list] : byStream) {
    std::sort(list.begin(), list.end(), [&](std::uint32_t a, std::uint32_t b) { return slices[a].ts < slices[b].ts; });
    const EngineLanes& e = engines[key.pid];
    std::int64_t prevEnd = std::numeric_limits<std::int64_t>::min();
    for (std::uint32_t i : list) {
      Op& op = ops[i];
      op.lane = streamLane[key];
      op.stream = streamNumber[key];
      op.engineLane = op.kind == OpKind::CopyH2D ? e.h2d : op.kind == OpKind::CopyD2H ? e.d2h : e.compute;
      if (op.correlation != 0) {
        auto it = apiByCorrelation.find(op.correlation);
        if (it != apiByCorrelation.end()) {
          op.submit = std::min(op.start, slices[it->second].ts - origin);
          // cudaMemcpy / cuMemcpyHtoD (no "Async"): the host waited for the copy.
          const std::string& api = ev.strings[slices[it->second].name];
          if (isCopyKind(op.kind) && api.find("emcpy") != std::string::npos && api.find("Async") == std::string::npos)
            op.flags |= kOpBlockingCall;
          // A pageable or blocking copy holds the host in its call until the data is staged
          // or copied: the call is a wait (the wait analysis calls it pageable staging).
          if (isCopyKind(op.kind) && (op.flags & (kOpPageable | kOpBlockingCall)) && cls[it->second].role == SliceRole::Api)
            ops[it->second].kind = OpKind::HostSync;
        }
      }
      op.ready = std::clamp(prevEnd, op.submit, op.start);
      prevEnd = std::max(prevEnd, op.end);
    }
  }
  std::stable_sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.start < b.start; });
  IterationInfo iterations = assignIterations(ops, trace->names(), options.iterations);
  if (options.batchSize > 0) {
    iterations.samplesPerIteration = options.batchSize;
    iterations.samplesSource = "--batch-size";
  } else if (iterations.count > 0) {
    batchFromInputShapes(ev, iterations);
  }
  trace->setCompletedBatches(iterations.count);
  trace->setIterations(std::move(iterations));
  // Numbered after sorting by start: "op N" is the Nth op of the imported trace.
  out.addOps(ops, OpOrigin{"op", 0});

  DeviceInfo device;
  device.backend = "replay";
  device.name = "imported trace";
  const bool pytorch = ev.deviceProperties.is_array() || gpuPids.size() > 0;
  if (ev.deviceProperties.is_array() && !ev.deviceProperties.empty() && ev.deviceProperties[0].is_object()) {
    const json& d = ev.deviceProperties[0];
    if (d.contains("name") && d["name"].is_string()) device.name = d["name"].get<std::string>();
    if (d.contains("computeMajor") && d["computeMajor"].is_number_integer())
      device.computeMajor = int(std::clamp<std::int64_t>(d["computeMajor"].get<std::int64_t>(), 0, 1000));
    if (d.contains("computeMinor") && d["computeMinor"].is_number_integer())
      device.computeMinor = int(std::clamp<std::int64_t>(d["computeMinor"].get<std::int64_t>(), 0, 1000));
    if (d.contains("totalGlobalMem") && d["totalGlobalMem"].is_number_unsigned())
      device.memoryBytes = d["totalGlobalMem"].get<std::uint64_t>();
  }
  device.timingSource = pytorch ? "imported (PyTorch profiler / Chrome trace)" : "imported (Chrome trace)";
  device.note = "imported from " + ev.source + "; time 0 is " + std::to_string(origin) + " ns in the file's clock";
  trace->setDevice(device);
  trace->setRanks({rankInfo(ev, origin)});
  trace->setOutcome(RunOutcome{RunState::Finished, "imported from " + ev.source});
  return out.finish();
}

}  // namespace

std::shared_ptr<Trace> importChromeEvents(ChromeEvents events, const ImportOptions& options) {
  if (events.pipescope.is_object()) return importPipescopeExport(events);
  return importGeneric(events, options);
}

}  // namespace pipescope
