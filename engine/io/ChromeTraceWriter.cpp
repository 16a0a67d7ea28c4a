#include "io/ChromeTraceWriter.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <vector>

#include "io/OutputFile.h"
#include "io/TraceMetadataJson.h"
#include "metrics/TimeSeries.h"

namespace pipescope {

namespace {

using nlohmann::json;

constexpr int kHostPid = 1;
constexpr std::size_t kMaxSubThreads = 64;
constexpr int kGpuPid = 2;

std::string quoted(const std::string& s) { return json(s).dump(-1, ' ', false, json::error_handler_t::replace); }

double finite(double v) { return std::isfinite(v) ? v : 0.0; }

/// Host lanes in one process, each GPU's lanes in its own (pid 2 + device), lanes
/// shared by the GPUs (communicators) in one after the last GPU.
int pidFor(const Lane& l, std::size_t devices) {
  if (isHostLane(l.kind)) return kHostPid;
  return kGpuPid + (l.device >= 0 ? l.device : int(devices));
}

/// Where each placement (an op on its lane, or its mirror on its engine lane) goes.
struct Placement {
  std::uint64_t op;  ///< position in the view
  bool mirror;
};

}  // namespace

std::string nsToMicrosText(std::int64_t ns) {
  char buf[40];
  const bool neg = ns < 0;
  const std::uint64_t a = neg ? std::uint64_t(0) - std::uint64_t(ns) : std::uint64_t(ns);
  std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%03" PRIu64, neg ? "-" : "", a / 1000, a % 1000);
  return buf;
}

void writeChromeTrace(const Trace& trace, std::ostream& out, const ChromeExportOptions& options) {
  const TraceView ops = trace.ops().snapshot();
  const std::vector<Lane> lanes = trace.lanes();
  const std::vector<std::string> names = trace.names();

  // Placements per lane, sorted by start, spread over sub-threads so none overlap.
  std::vector<std::vector<Placement>> perLane(lanes.size());
  for (std::uint64_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    if (op.lane < lanes.size()) perLane[op.lane].push_back({i, false});
    if (op.engineLane < lanes.size() && op.engineLane != op.lane) perLane[op.engineLane].push_back({i, true});
  }
  std::vector<std::uint32_t> tidOf(ops.size(), 0), mirrorTidOf(ops.size(), 0);
  struct ThreadInfo {
    std::uint16_t lane;
    int sub;
    std::uint32_t tid;
  };
  std::vector<ThreadInfo> threads;
  std::uint32_t nextTid = 1;
  for (std::size_t l = 0; l < lanes.size(); ++l) {
    auto& list = perLane[l];
    std::stable_sort(list.begin(), list.end(),
                     [&](const Placement& a, const Placement& b) { return ops[a.op].start < ops[b.op].start; });
    std::vector<std::int64_t> ends;
    const std::uint32_t base = nextTid;
    for (const Placement& p : list) {
      const Op& op = ops[p.op];
      std::size_t d = 0;
      while (d < ends.size() && ends[d] > op.start) ++d;
      if (d == ends.size()) {
        if (ends.size() < kMaxSubThreads)
          ends.push_back(op.start);
        else
          d = kMaxSubThreads - 1;  // pathological overlap shares the last thread rather than making thousands
      }
      ends[d] = std::max(ends[d], op.end);
      (p.mirror ? mirrorTidOf : tidOf)[p.op] = base + std::uint32_t(d);
    }
    const std::size_t subs = std::max<std::size_t>(1, ends.size());
    for (std::size_t d = 0; d < subs; ++d) threads.push_back({std::uint16_t(l), int(d), nextTid++});
  }

  json meta;
  meta["format"] = "pipescope-chrome";
  meta["version"] = kChromeExportVersion;
  meta["config_history"] = configHistoryToJson(trace.configHistory());
  meta["device"] = deviceToJson(trace.device());
  meta["devices"] = devicesToJson(trace.devices());
  meta["outcome"] = outcomeToJson(trace.outcome());
  meta["completed_batches"] = trace.completedBatches();
  meta["names"] = names;

  std::string buf;
  buf.reserve(1 << 20);
  auto flush = [&] {
    out.write(buf.data(), std::streamsize(buf.size()));
    buf.clear();
  };
  buf += "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"pipescope\":";
  buf += meta.dump(-1, ' ', false, json::error_handler_t::replace);
  buf += "},\n\"traceEvents\":[\n";
  bool first = true;
  auto sep = [&] {
    if (!first) buf += ",\n";
    first = false;
  };
  const std::vector<DeviceInfo> devices = trace.devices();
  std::vector<std::pair<int, std::string>> processes{{kHostPid, "Host"}};
  for (std::size_t d = 0; d < devices.size(); ++d) {
    const std::string summary = devices[d].summary().empty() ? std::string("device") : devices[d].summary();
    processes.emplace_back(kGpuPid + int(d), devices.size() == 1
                                                 ? "GPU: " + summary
                                                 : "GPU" + std::to_string(devices[d].ordinal) + ": " + summary);
  }
  if (std::any_of(lanes.begin(), lanes.end(), [](const Lane& l) { return l.device < 0 && !isHostLane(l.kind); }))
    processes.emplace_back(kGpuPid + int(devices.size()), "Communication");
  auto pidOf = [&](std::uint16_t lane) { return pidFor(lanes[lane], devices.size()); };
  for (const auto& [pid, pname] : processes) {
    sep();
    buf += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(pid) +
           ",\"tid\":0,\"args\":{\"name\":" + quoted(pname) + "}}";
    sep();
    buf += "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" + std::to_string(pid) +
           ",\"tid\":0,\"args\":{\"sort_index\":" + std::to_string(pid) + "}}";
  }
  for (const ThreadInfo& t : threads) {
    const Lane& lane = lanes[t.lane];
    const std::string name = t.sub == 0 ? lane.name : lane.name + " (" + std::to_string(t.sub + 1) + ")";
    const std::string ids = "\"pid\":" + std::to_string(pidOf(t.lane)) + ",\"tid\":" + std::to_string(t.tid);
    sep();
    buf += "{\"ph\":\"M\",\"name\":\"thread_name\"," + ids + ",\"args\":{\"name\":" + quoted(name) +
           ",\"pipescope_lane\":" + std::to_string(lane.id) +
           ",\"lane_kind\":" + quoted(std::string(toString(lane.kind))) +
           ",\"lane_index\":" + std::to_string(lane.index) + ",\"lane_device\":" + std::to_string(lane.device) + "}}";
    sep();
    buf += "{\"ph\":\"M\",\"name\":\"thread_sort_index\"," + ids +
           ",\"args\":{\"sort_index\":" + std::to_string(t.tid) + "}}";
  }

  std::vector<std::string> quotedNames(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) quotedNames[i] = quoted(names[i]);
  std::string kindNames[kOpKindCount];
  for (int k = 0; k < kOpKindCount; ++k) kindNames[k] = quoted(std::string(toString(OpKind(k))));

  // The host API call that started each GPU op, for flow arrows.
  std::unordered_map<std::uint32_t, std::uint64_t> apiByCorrelation;
  for (std::uint64_t i = 0; i < ops.size(); ++i)
    if (ops[i].kind == OpKind::ApiCall && ops[i].correlation != 0) apiByCorrelation.emplace(ops[i].correlation, i);

  for (std::uint64_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    const std::string& name = op.name != 0 && op.name < names.size() ? quotedNames[op.name] : kindNames[int(op.kind)];
    const std::string ts = nsToMicrosText(op.start);
    const std::string dur = nsToMicrosText(op.duration());
    std::string args = "\"kind\":" + kindNames[int(op.kind)];
    if (op.batch != kNoBatch) args += ",\"batch\":" + std::to_string(op.batch);
    if (op.stream != kNoStream) args += ",\"stream\":" + std::to_string(op.stream);
    if (op.bytes != 0) {
      args += ",\"bytes\":" + std::to_string(op.bytes);
      if (op.duration() > 0) {
        char gbps[32];
        std::snprintf(gbps, sizeof gbps, "%.3f", double(op.bytes) / double(op.duration()));
        args += ",\"GB/s\":";
        args += gbps;
      }
    }
    args += ",\"stream wait (ns)\":" + std::to_string(op.streamWait());
    args += ",\"engine wait (ns)\":" + std::to_string(op.engineWait());
    if (op.correlation != 0) args += ",\"correlation\":" + std::to_string(op.correlation);
    if (op.flags != 0) args += ",\"flags\":" + std::to_string(op.flags);
    if (op.engineLane != kNoLane) args += ",\"engine_lane\":" + std::to_string(op.engineLane);
    if (options.waitCause) {
      const std::string cause = options.waitCause(op, ops.begin() + i);
      if (!cause.empty()) args += ",\"wait cause\":" + quoted(cause);
    }
    auto emit = [&](std::uint32_t tid, int pid, bool mirror) {
      sep();
      buf += "{\"ph\":\"X\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + ts +
             ",\"dur\":" + dur + ",\"name\":" + name + ",\"cat\":" + kindNames[int(op.kind)] + ",\"args\":{" + args +
             (mirror ? ",\"mirror\":true}}" : "}}");
    };
    if (op.lane < lanes.size()) emit(tidOf[i], pidOf(op.lane), false);
    if (op.engineLane < lanes.size() && op.engineLane != op.lane)
      emit(mirrorTidOf[i], pidOf(op.engineLane), true);
    if (isGpuKind(op.kind) && op.correlation != 0 && op.lane < lanes.size()) {
      auto it = apiByCorrelation.find(op.correlation);
      if (it != apiByCorrelation.end() && ops[it->second].lane < lanes.size()) {
        const Op& api = ops[it->second];
        const std::string id = std::to_string(op.correlation);
        sep();
        buf += "{\"ph\":\"s\",\"id\":" + id + ",\"pid\":" + std::to_string(pidOf(api.lane)) +
               ",\"tid\":" + std::to_string(tidOf[it->second]) + ",\"ts\":" + nsToMicrosText(api.start) +
               ",\"name\":\"launch\",\"cat\":\"launch\"}";
        sep();
        buf += "{\"ph\":\"f\",\"bp\":\"e\",\"id\":" + id + ",\"pid\":" + std::to_string(pidOf(op.lane)) +
               ",\"tid\":" + std::to_string(tidOf[i]) + ",\"ts\":" + ts + ",\"name\":\"launch\",\"cat\":\"launch\"}";
      }
    }
    if (buf.size() > (1u << 20)) flush();
  }

  if (options.counterBins > 0 && !ops.empty()) {
    std::int64_t from = ops[0].start, to = ops[0].end;
    ops.forEach([&](const Op& op) {
      from = std::min(from, op.start);
      to = std::max(to, op.end);
    });
    const TimeSeries series = computeTimeSeries(ops, trace.config(), from, to, options.counterBins);
    for (std::size_t b = 0; b < series.size(); ++b) {
      char line[256];
      std::snprintf(line, sizeof line,
                    "{\"ph\":\"C\",\"pid\":%d,\"tid\":0,\"name\":\"throughput\",\"ts\":%s,\"args\":{\"H2D GB/s\":%.3f,"
                    "\"D2H GB/s\":%.3f,\"batches/s\":%.3f}}",
                    kGpuPid, nsToMicrosText(series.startNs[b]).c_str(),
                    finite(series.h2dGBps[b]), finite(series.d2hGBps[b]), finite(series.batchesPerSec[b]));
      sep();
      buf += line;
    }
  }
  buf += "\n]}\n";
  flush();
}

void saveChromeTrace(const Trace& trace, const std::string& path, const ChromeExportOptions& options) {
  writeOutputFile(path, [&](std::ostream& out) { writeChromeTrace(trace, out, options); });
}

}  // namespace pipescope
