#include "sim/DeviceProfile.h"

#include "config/ModelWork.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>

#include "config/ConfigJson.h"
#include "sim/MachineProfiles.h"

namespace pipescope {

// Generated at build time from resources/profiles/*.json (cmake/EmbedFiles.cmake).
const std::vector<std::pair<std::string_view, std::string_view>>& embeddedProfiles();

namespace {

using nlohmann::json;

/// Reads the profile's fields one by one so every error names the field, and
/// remembers which keys were seen so unknown keys (typos) can be reported.
class FieldReader {
 public:
  explicit FieldReader(const json& j) : j_(j) {
    if (!j.is_object()) throw std::invalid_argument("a device profile must be a JSON object, got " + typeName(j));
  }

  void text(const char* key, std::string& out, bool required = false) {
    const json* v = find(key, required);
    if (!v) return;
    if (!v->is_string()) fail(key, "a string", *v);
    out = v->get<std::string>();
  }
  void integer(const char* key, int& out, int lo, int hi) {
    const json* v = find(key, false);
    if (!v) return;
    if (!v->is_number_integer()) fail(key, "an integer", *v);
    const auto x = v->get<std::int64_t>();
    if (x < lo || x > hi)
      throw std::invalid_argument("device profile field '" + std::string(key) + "' = " + std::to_string(x) +
                                  ": allowed " + std::to_string(lo) + ".." + std::to_string(hi));
    out = int(x);
  }
  /// An optional number from 0 to `max`; beyond it refused with "allowed <allowed>"
  /// (the range in the field's unit, what it is and who measures it).
  void numberUpTo(const char* key, double& out, double max, const std::string& allowed) {
    number(key, out, true);
    if (out > max)
      throw std::invalid_argument("device profile field '" + std::string(key) + "' = " + std::to_string(out) +
                                  ": allowed " + allowed);
  }
  void bytes(const char* key, std::uint64_t& out) {
    const json* v = find(key, false);
    if (!v) return;
    if (!v->is_number_unsigned() || v->get<std::uint64_t>() == 0) fail(key, "a positive integer (bytes)", *v);
    out = v->get<std::uint64_t>();
  }
  void boolean(const char* key, bool& out) {
    const json* v = find(key, false);
    if (!v) return;
    if (!v->is_boolean()) fail(key, "true or false", *v);
    out = v->get<bool>();
  }
  /// A finite number; positive unless zero is allowed (costs may be 0, rates may not).
  void number(const char* key, double& out, bool allowZero) {
    const json* v = find(key, false);
    if (!v) return;
    if (!v->is_number()) fail(key, allowZero ? "a number >= 0" : "a number > 0", *v);
    const double x = v->get<double>();
    if (!std::isfinite(x) || x < 0 || (!allowZero && x == 0))
      fail(key, allowZero ? "a number >= 0" : "a number > 0", *v);
    out = x;
  }
  void curve(const char* key, std::vector<BandwidthPoint>& out) {
    const json* v = find(key, false);
    if (!v) return;
    if (!v->is_array()) fail(key, "an array of {\"bytes\": N, \"gbps\": X} points", *v);
    out.clear();
    for (std::size_t i = 0; i < v->size(); ++i) {
      const json& p = (*v)[i];
      const std::string where = std::string(key) + "[" + std::to_string(i) + "]";
      if (!p.is_object() || !p.contains("bytes") || !p.contains("gbps") || p.size() != 2)
        throw std::invalid_argument("device profile field '" + where +
                                    "' must be an object with exactly 'bytes' and 'gbps', got " + p.dump());
      if (!p["bytes"].is_number_unsigned() || p["bytes"].get<std::uint64_t>() == 0)
        throw std::invalid_argument("device profile field '" + where + ".bytes' must be a positive integer, got " +
                                    p["bytes"].dump());
      if (!p["gbps"].is_number() || !(p["gbps"].get<double>() > 0) || !std::isfinite(p["gbps"].get<double>()))
        throw std::invalid_argument("device profile field '" + where + ".gbps' must be a number > 0, got " +
                                    p["gbps"].dump());
      BandwidthPoint bp{p["bytes"].get<std::uint64_t>(), p["gbps"].get<double>()};
      if (!out.empty() && bp.bytes <= out.back().bytes)
        throw std::invalid_argument("device profile field '" + where + ".bytes' = " + std::to_string(bp.bytes) +
                                    ": points must be sorted by strictly increasing size");
      out.push_back(bp);
    }
  }

  /// An array of {"<xName>": integer in [xMin, xMax], "<yName>": number > 0} points,
  /// sorted by strictly increasing x (GEMM, speed-up and CPU rounds curves).
  template <class Point, class X>
  void points(const char* key, std::vector<Point>& out, const char* xName, X Point::*x, std::int64_t xMin,
              std::int64_t xMax, const char* yName, double Point::*y) {
    const json* v = find(key, false);
    if (v) parsePoints(*v, key, out, xName, x, xMin, xMax, yName, y);
  }
  /// `points` on a value found elsewhere (inside another field), `key` naming it in errors.
  template <class Point, class X>
  static void parsePoints(const json& v, const std::string& key, std::vector<Point>& out, const char* xName,
                          X Point::*x, std::int64_t xMin, std::int64_t xMax, const char* yName, double Point::*y) {
    const std::string shape = std::string("{\"") + xName + "\": N, \"" + yName + "\": X}";
    if (!v.is_array()) fail(key.c_str(), ("an array of " + shape + " points").c_str(), v);
    out.clear();
    for (std::size_t i = 0; i < v.size(); ++i) {
      const json& p = v[i];
      const std::string where = key + "[" + std::to_string(i) + "]";
      if (!p.is_object() || p.size() != 2 || !p.contains(xName) || !p.contains(yName) ||
          !p[xName].is_number_integer() || p[xName].get<std::int64_t>() < xMin || p[xName].get<std::int64_t>() > xMax ||
          !p[yName].is_number() || !(p[yName].get<double>() > 0) || !std::isfinite(p[yName].get<double>()))
        throw std::invalid_argument("device profile field '" + where + "' must be {\"" + xName + "\": N from " +
                                    std::to_string(xMin) + " to " + std::to_string(xMax) + ", \"" + yName +
                                    "\": X > 0}, got " + p.dump());
      Point pt;
      pt.*x = X(p[xName].get<std::int64_t>());
      pt.*y = p[yName].get<double>();
      if (!out.empty() && pt.*x <= out.back().*x)
        throw std::invalid_argument("device profile field '" + where + "." + xName + "' = " + std::to_string(pt.*x) +
                                    ": points must be sorted by strictly increasing " + xName);
      out.push_back(pt);
    }
  }

  void gemmCurve(const char* key, std::vector<GemmPoint>& out) {
    points(key, out, "rows", &GemmPoint::rows, 1, INT64_MAX, "ns", &GemmPoint::ns);
  }
  void speedups(const char* key, std::vector<WorkerSpeedup>& out) {
    points(key, out, "workers", &WorkerSpeedup::workers, 1, 4096, "speedup", &WorkerSpeedup::speedup);
  }
  void streamSpeedups(const char* key, std::vector<StreamSpeedup>& out) {
    points(key, out, "streams", &StreamSpeedup::streams, 1, 4096, "speedup", &StreamSpeedup::speedup);
  }
  /// [{"bytes": N > 0, "curve": [{"streams": N, "speedup": X}, ...]}, ...], by
  /// strictly increasing bytes, each curve as streamSpeedups reads one.
  void sizedStreamSpeedups(const char* key, std::vector<SizedStreamSpeedup>& out) {
    sizedCurves(key, out, "streams", &StreamSpeedup::streams);
  }
  /// The same with curves by "workers".
  void sizedWorkerSpeedups(const char* key, std::vector<SizedWorkerSpeedup>& out) {
    sizedCurves(key, out, "workers", &WorkerSpeedup::workers);
  }
  /// [{"bytes": N > 0, "curve": [{"<countName>": N, "speedup": X}, ...]}, ...], by
  /// strictly increasing bytes.
  template <class Sized, class Point>
  void sizedCurves(const char* key, std::vector<Sized>& out, const char* countName, int Point::*count) {
    const json* v = find(key, false);
    if (!v) return;
    if (!v->is_array())
      fail(key,
           ("an array of {\"bytes\": N, \"curve\": [{\"" + std::string(countName) + "\": N, \"speedup\": X}]} sizes")
               .c_str(),
           *v);
    out.clear();
    for (std::size_t i = 0; i < v->size(); ++i) {
      const json& p = (*v)[i];
      const std::string where = std::string(key) + "[" + std::to_string(i) + "]";
      if (!p.is_object() || p.size() != 2 || !p.contains("bytes") || !p.contains("curve"))
        throw std::invalid_argument("device profile field '" + where +
                                    "' must be an object with exactly 'bytes' and 'curve', got " + p.dump());
      if (!p["bytes"].is_number_integer() ||
          (!p["bytes"].is_number_unsigned() && p["bytes"].get<std::int64_t>() <= 0) ||
          p["bytes"].get<std::uint64_t>() == 0)
        throw std::invalid_argument("device profile field '" + where + ".bytes' must be a positive integer, got " +
                                    p["bytes"].dump());
      Sized sized;
      sized.bytes = p["bytes"].get<std::uint64_t>();
      parsePoints(p["curve"], where + ".curve", sized.curve, countName, count, 1, 4096, "speedup", &Point::speedup);
      if (sized.curve.empty())
        throw std::invalid_argument("device profile field '" + where + ".curve' must have at least one point");
      if (!out.empty() && sized.bytes <= out.back().bytes)
        throw std::invalid_argument("device profile field '" + where + ".bytes' = " + std::to_string(sized.bytes) +
                                    ": sizes must be sorted by strictly increasing bytes");
      out.push_back(std::move(sized));
    }
  }
  void slotsSlowdown(const char* key, std::vector<ManagedSlotsPoint>& out) {
    points(key, out, "slots", &ManagedSlotsPoint::hostSlots, 1, 65536, "factor", &ManagedSlotsPoint::factor);
  }
  void lateWorkers(const char* key, std::vector<LateWorkerPoint>& out) {
    points(key, out, "workers", &LateWorkerPoint::workers, 1, 4096, "factor", &LateWorkerPoint::factor);
  }
  void handoffs(const char* key, std::vector<WorkerHandoff>& out) {
    points(key, out, "workers", &WorkerHandoff::workers, 1, 4096, "ns", &WorkerHandoff::ns);
  }
  void callsAfterStage(const char* key, std::vector<CallAfterStagePoint>& out) {
    points(key, out, "bytes", &CallAfterStagePoint::bytes, 1, INT64_MAX, "ns", &CallAfterStagePoint::ns);
  }
  void roundsCurve(const char* key, std::vector<CpuRoundsPoint>& out) {
    points(key, out, "rounds", &CpuRoundsPoint::rounds, 0, 1 << 20, "nsPerByte", &CpuRoundsPoint::nsPerByte);
  }

  void validation(const char* key, std::optional<ProfileValidation>& out) {
    const json* v = find(key, false);
    if (!v) return;
    try {
      ProfileValidation pv;
      pv.device = v->at("device").get<std::string>();
      pv.seed = v->at("seed").get<std::uint64_t>();
      pv.recordedAt = v->at("recordedAt").get<std::string>();
      for (const json& r : v->at("runs"))
        pv.runs.push_back({configFromJson(r.at("config")), r.at("errorPct").get<double>()});
      out = std::move(pv);
    } catch (const std::exception& e) {
      throw std::invalid_argument("device profile field '" + std::string(key) +
                                  "' must be {device, seed, recordedAt, runs: [{config, errorPct}]}: " + e.what());
    }
  }

  void rejectUnknown() const {
    for (auto it = j_.begin(); it != j_.end(); ++it)
      if (!seen_.count(it.key()))
        throw std::invalid_argument("device profile has an unknown field '" + it.key() +
                                    "' (a typo? see docs/simulator.md for the fields)");
  }

 private:
  static std::string typeName(const json& v) { return v.type_name(); }
  [[noreturn]] static void fail(const char* key, const char* expected, const json& v) {
    throw std::invalid_argument("device profile field '" + std::string(key) + "' must be " + expected + ", got " +
                                v.dump());
  }
  const json* find(const char* key, bool required) {
    seen_.insert({key, true});
    auto it = j_.find(key);
    if (it == j_.end()) {
      if (required) throw std::invalid_argument("device profile is missing the field '" + std::string(key) + "'");
      return nullptr;
    }
    return &*it;
  }

  const json& j_;
  std::unordered_map<std::string, bool> seen_;
};

json curveToJson(const std::vector<BandwidthPoint>& c) {
  json a = json::array();
  for (const auto& p : c) a.push_back({{"bytes", p.bytes}, {"gbps", p.gbps}});
  return a;
}

/// The reader's `points` in reverse: [{"<xName>": x, "<yName>": y}, ...].
template <class Point, class X>
json pointsToJson(const std::vector<Point>& c, const char* xName, X Point::*x, const char* yName, double Point::*y) {
  json a = json::array();
  for (const Point& p : c) a.push_back({{xName, p.*x}, {yName, p.*y}});
  return a;
}

/// The reader's `sizedCurves` in reverse: [{"bytes": N, "curve": [{"<countName>": N, "speedup": X}]}, ...].
template <class Sized, class Point>
json sizedCurvesToJson(const std::vector<Sized>& sizes, const char* countName, int Point::*count) {
  json a = json::array();
  for (const Sized& s : sizes)
    a.push_back({{"bytes", s.bytes}, {"curve", pointsToJson(s.curve, countName, count, "speedup", &Point::speedup)}});
  return a;
}

}  // namespace

json profileToJson(const DeviceProfile& p) {
  json j;
  j["name"] = p.name;
  j["description"] = p.description;
  j["deviceName"] = p.deviceName;
  j["source"] = p.source;
  if (!p.fitConfigurations.empty()) j["fitConfigurations"] = p.fitConfigurations;
  j["copyEngines"] = p.copyEngines;
  j["hardwareQueues"] = p.hardwareQueues;
  j["delayedKernelSignal"] = p.delayedKernelSignal;
  j["h2dPinnedGBps"] = p.h2dPinnedGBps;
  j["d2hPinnedGBps"] = p.d2hPinnedGBps;
  j["h2dPageableGBps"] = p.h2dPageableGBps;
  j["d2hPageableGBps"] = p.d2hPageableGBps;
  j["bidirectionalGBps"] = p.bidirectionalGBps;
  j["h2dPinnedCurve"] = curveToJson(p.h2dPinnedCurve);
  j["d2hPinnedCurve"] = curveToJson(p.d2hPinnedCurve);
  j["h2dPageableCurve"] = curveToJson(p.h2dPageableCurve);
  j["d2hPageableCurve"] = curveToJson(p.d2hPageableCurve);
  if (!p.h2dPageableRotatingCurve.empty()) j["h2dPageableRotatingCurve"] = curveToJson(p.h2dPageableRotatingCurve);
  if (!p.d2hPageableRotatingCurve.empty()) j["d2hPageableRotatingCurve"] = curveToJson(p.d2hPageableRotatingCurve);
  if (!p.h2dPageableStagingCurve.empty()) j["h2dPageableStagingCurve"] = curveToJson(p.h2dPageableStagingCurve);
  if (!p.d2hPageableStagingCurve.empty()) j["d2hPageableStagingCurve"] = curveToJson(p.d2hPageableStagingCurve);
  if (!p.h2dPinnedCpuWrittenCurve.empty()) j["h2dPinnedCpuWrittenCurve"] = curveToJson(p.h2dPinnedCpuWrittenCurve);
  if (!p.mappedReadCpuWrittenCurve.empty()) j["mappedReadCpuWrittenCurve"] = curveToJson(p.mappedReadCpuWrittenCurve);
  if (!p.h2dPinnedBlockingCurve.empty()) j["h2dPinnedBlockingCurve"] = curveToJson(p.h2dPinnedBlockingCurve);
  if (!p.d2hPinnedBlockingCurve.empty()) j["d2hPinnedBlockingCurve"] = curveToJson(p.d2hPinnedBlockingCurve);
  j["copyLatencyNs"] = p.copyLatencyNs;
  j["mappedReadGBps"] = p.mappedReadGBps;
  j["mappedWriteGBps"] = p.mappedWriteGBps;
  if (p.mappedDuplexGBps > 0) j["mappedDuplexGBps"] = p.mappedDuplexGBps;
  if (p.mappedWriteOverlap != 1.0) j["mappedWriteOverlap"] = p.mappedWriteOverlap;
  if (p.linkKernelSmWeight != 0) j["linkKernelSmWeight"] = p.linkKernelSmWeight;
  j["managedMigrationGBps"] = p.managedMigrationGBps;
  if (!p.managedGpuFaultCurve.empty()) j["managedGpuFaultCurve"] = curveToJson(p.managedGpuFaultCurve);
  if (!p.managedCpuFaultCurve.empty()) j["managedCpuFaultCurve"] = curveToJson(p.managedCpuFaultCurve);
  if (!p.managedCpuWriteFaultCurve.empty())
    j["managedCpuWriteFaultCurve"] = curveToJson(p.managedCpuWriteFaultCurve);
  if (!p.prefetchToDeviceCurve.empty()) j["prefetchToDeviceCurve"] = curveToJson(p.prefetchToDeviceCurve);
  if (!p.prefetchToHostCurve.empty()) j["prefetchToHostCurve"] = curveToJson(p.prefetchToHostCurve);
  if (p.prefetchAfterKernelNs != 0) j["prefetchAfterKernelNs"] = p.prefetchAfterKernelNs;
  j["modelGflops"] = p.modelGflops;
  j["deviceMemoryGBps"] = p.deviceMemoryGBps;
  if (p.modelMemoryGBps != 0) j["modelMemoryGBps"] = p.modelMemoryGBps;
  if (!p.modelKernelBlocksCurve.empty())
    j["modelKernelBlocksCurve"] = pointsToJson(p.modelKernelBlocksCurve, "blocks", &KernelBlocksPoint::blocks, "factor",
                                               &KernelBlocksPoint::factor);
  j["gemmTflops"] = p.gemmTflops;
  if (!p.lightGemmCurve.empty())
    j["lightGemmCurve"] = pointsToJson(p.lightGemmCurve, "rows", &GemmPoint::rows, "ns", &GemmPoint::ns);
  if (!p.heavyGemmCurve.empty())
    j["heavyGemmCurve"] = pointsToJson(p.heavyGemmCurve, "rows", &GemmPoint::rows, "ns", &GemmPoint::ns);
  j["kernelGapNs"] = p.kernelGapNs;
  j["kernelFixedNs"] = p.kernelFixedNs;
  j["streamDependencyNs"] = p.streamDependencyNs;
  j["kernelLaunchNs"] = p.kernelLaunchNs;
  j["lightGemmCallNs"] = p.lightGemmCallNs;
  j["heavyGemmCallNs"] = p.heavyGemmCallNs;
  j["memcpyAsyncCallNs"] = p.memcpyAsyncCallNs;
  j["memcpySyncCallNs"] = p.memcpySyncCallNs;
  j["eventRecordNs"] = p.eventRecordNs;
  j["syncWakeNs"] = p.syncWakeNs;
  j["syncSleepWakeNs"] = p.syncSleepWakeNs;
  j["syncSleepAfterNs"] = p.syncSleepAfterNs;
  if (p.memcpySyncSleeps) j["memcpySyncSleeps"] = true;
  if (p.pageableMemcpySyncSleeps) j["pageableMemcpySyncSleeps"] = true;
  j["spinSyncWakeNs"] = p.spinSyncWakeNs;
  j["yieldSyncWakeNs"] = p.yieldSyncWakeNs;
  j["hostOpOverheadNs"] = p.hostOpOverheadNs;
  j["hostBatchOverheadNs"] = p.hostBatchOverheadNs;
  j["hostPendingOpNs"] = p.hostPendingOpNs;
  if (p.recorderFlushNsPerOp > 0) j["recorderFlushNsPerOp"] = p.recorderFlushNsPerOp;
  j["syncReturnNs"] = p.syncReturnNs;
  j["cpuNsPerOp"] = p.cpuNsPerOp;
  j["cpuPreprocessNsPerByte"] = p.cpuPreprocessNsPerByte;
  j["cpuPostprocessNsPerByte"] = p.cpuPostprocessNsPerByte;
  j["cpuPreprocessNsPerOp"] = p.cpuPreprocessNsPerOp;
  j["cpuPostprocessNsPerOp"] = p.cpuPostprocessNsPerOp;
  if (!p.cpuPreprocessRoundsCurve.empty())
    j["cpuPreprocessRoundsCurve"] = pointsToJson(p.cpuPreprocessRoundsCurve, "rounds", &CpuRoundsPoint::rounds,
                                                 "nsPerByte", &CpuRoundsPoint::nsPerByte);
  if (!p.cpuPostprocessRoundsCurve.empty())
    j["cpuPostprocessRoundsCurve"] = pointsToJson(p.cpuPostprocessRoundsCurve, "rounds", &CpuRoundsPoint::rounds,
                                                  "nsPerByte", &CpuRoundsPoint::nsPerByte);
  if (!p.cpuWorkerSpeedup.empty())
    j["cpuWorkerSpeedup"] =
        pointsToJson(p.cpuWorkerSpeedup, "workers", &WorkerSpeedup::workers, "speedup", &WorkerSpeedup::speedup);
  if (!p.managedFaultStreamsSpeedup.empty())
    j["managedFaultStreamsSpeedup"] = pointsToJson(p.managedFaultStreamsSpeedup, "streams", &StreamSpeedup::streams,
                                                   "speedup", &StreamSpeedup::speedup);
  if (!p.managedFaultStreamsSpeedupBySize.empty())
    j["managedFaultStreamsSpeedupBySize"] =
        sizedCurvesToJson(p.managedFaultStreamsSpeedupBySize, "streams", &StreamSpeedup::streams);
  if (!p.managedCpuWriteFaultWorkers.empty())
    j["managedCpuWriteFaultWorkers"] = sizedCurvesToJson(p.managedCpuWriteFaultWorkers, "workers", &WorkerSpeedup::workers);
  if (!p.managedCpuReadFaultWorkers.empty())
    j["managedCpuReadFaultWorkers"] = sizedCurvesToJson(p.managedCpuReadFaultWorkers, "workers", &WorkerSpeedup::workers);
  if (!p.managedSlotsSlowdown.empty())
    j["managedSlotsSlowdown"] = pointsToJson(p.managedSlotsSlowdown, "slots", &ManagedSlotsPoint::hostSlots, "factor",
                                             &ManagedSlotsPoint::factor);
  if (!p.managedSlotsCpuSlowdown.empty())
    j["managedSlotsCpuSlowdown"] = pointsToJson(p.managedSlotsCpuSlowdown, "slots", &ManagedSlotsPoint::hostSlots, "factor",
                                                &ManagedSlotsPoint::factor);
  if (!p.mappedStreamsSpeedup.empty())
    j["mappedStreamsSpeedup"] = pointsToJson(p.mappedStreamsSpeedup, "streams", &StreamSpeedup::streams, "speedup",
                                             &StreamSpeedup::speedup);
  if (!p.cpuStageLateWorker.empty())
    j["cpuStageLateWorker"] =
        pointsToJson(p.cpuStageLateWorker, "workers", &LateWorkerPoint::workers, "factor", &LateWorkerPoint::factor);
  if (!p.cpuStageHandoff.empty())
    j["cpuStageHandoff"] =
        pointsToJson(p.cpuStageHandoff, "workers", &WorkerHandoff::workers, "ns", &WorkerHandoff::ns);
  if (!p.callAfterCpuStage.empty())
    j["callAfterCpuStage"] =
        pointsToJson(p.callAfterCpuStage, "bytes", &CallAfterStagePoint::bytes, "ns", &CallAfterStagePoint::ns);
  j["deviceMemoryBytes"] = p.deviceMemoryBytes;
  if (!p.multiGpuSource.empty()) j["multiGpuSource"] = p.multiGpuSource;
  j["peerAccess"] = p.peerAccess;
  j["peerLinkName"] = p.peerLinkName;
  j["peerGBps"] = p.peerGBps;
  if (!p.peerCopyCurve.empty()) j["peerCopyCurve"] = curveToJson(p.peerCopyCurve);
  j["peerBidirectionalGBps"] = p.peerBidirectionalGBps;
  j["peerLatencyNs"] = p.peerLatencyNs;
  j["allreduceBusGBps"] = p.allreduceBusGBps;
  if (!p.allreduceBusCurve.empty()) j["allreduceBusCurve"] = curveToJson(p.allreduceBusCurve);
  j["allreduceCurveGpus"] = p.allreduceCurveGpus;
  j["allreduceStepLatencyNs"] = p.allreduceStepLatencyNs;
  if (p.allreduceCallNs > 0) j["allreduceCallNs"] = p.allreduceCallNs;
  if (p.hostLinksGBps > 0) j["hostLinksGBps"] = p.hostLinksGBps;
  if (p.hostLinksH2dGBps > 0) j["hostLinksH2dGBps"] = p.hostLinksH2dGBps;
  if (p.hostLinksD2hGBps > 0) j["hostLinksD2hGBps"] = p.hostLinksD2hGBps;
  j["collectiveSmShare"] = p.collectiveSmShare;
  if (p.collectiveYieldShare > 0) j["collectiveYieldShare"] = p.collectiveYieldShare;
  if (p.multiGpuCopySwitchNs > 0) j["multiGpuCopySwitchNs"] = p.multiGpuCopySwitchNs;
  if (p.multiGpuHostOpOverheadNs > 0) j["multiGpuHostOpOverheadNs"] = p.multiGpuHostOpOverheadNs;
  if (p.validation) {
    json runs = json::array();
    for (const ValidatedRun& r : p.validation->runs)
      runs.push_back({{"config", configToJson(r.config)}, {"errorPct", r.errorPct}});
    j["validation"] = {{"device", p.validation->device},
                       {"seed", p.validation->seed},
                       {"recordedAt", p.validation->recordedAt},
                       {"runs", runs}};
  }
  return j;
}

DeviceProfile profileFromJson(const json& j) {
  DeviceProfile p;
  FieldReader r(j);
  r.text("name", p.name, true);
  if (p.name.empty()) throw std::invalid_argument("device profile field 'name' must not be empty");
  r.text("description", p.description);
  r.text("deviceName", p.deviceName);
  r.text("source", p.source);
  r.text("fitConfigurations", p.fitConfigurations);
  r.integer("copyEngines", p.copyEngines, 1, 2);
  r.integer("hardwareQueues", p.hardwareQueues, 1, 128);
  r.boolean("delayedKernelSignal", p.delayedKernelSignal);
  r.number("h2dPinnedGBps", p.h2dPinnedGBps, false);
  r.number("d2hPinnedGBps", p.d2hPinnedGBps, false);
  r.number("h2dPageableGBps", p.h2dPageableGBps, false);
  r.number("d2hPageableGBps", p.d2hPageableGBps, false);
  r.number("bidirectionalGBps", p.bidirectionalGBps, false);
  r.curve("h2dPinnedCurve", p.h2dPinnedCurve);
  r.curve("d2hPinnedCurve", p.d2hPinnedCurve);
  r.curve("h2dPageableCurve", p.h2dPageableCurve);
  r.curve("d2hPageableCurve", p.d2hPageableCurve);
  r.curve("h2dPageableRotatingCurve", p.h2dPageableRotatingCurve);
  r.curve("d2hPageableRotatingCurve", p.d2hPageableRotatingCurve);
  r.curve("h2dPageableStagingCurve", p.h2dPageableStagingCurve);
  r.curve("d2hPageableStagingCurve", p.d2hPageableStagingCurve);
  r.curve("h2dPinnedCpuWrittenCurve", p.h2dPinnedCpuWrittenCurve);
  r.curve("mappedReadCpuWrittenCurve", p.mappedReadCpuWrittenCurve);
  r.curve("h2dPinnedBlockingCurve", p.h2dPinnedBlockingCurve);
  r.curve("d2hPinnedBlockingCurve", p.d2hPinnedBlockingCurve);
  r.number("copyLatencyNs", p.copyLatencyNs, true);
  r.number("mappedReadGBps", p.mappedReadGBps, false);
  r.number("mappedWriteGBps", p.mappedWriteGBps, true);
  r.number("mappedDuplexGBps", p.mappedDuplexGBps, true);
  r.number("mappedWriteOverlap", p.mappedWriteOverlap, true);
  if (p.mappedWriteOverlap > 1)
    throw std::invalid_argument("device profile field 'mappedWriteOverlap' = " + std::to_string(p.mappedWriteOverlap) +
                                ": allowed 0 to 1 (the share of a mapped write a kernel hides behind its work)");
  r.number("linkKernelSmWeight", p.linkKernelSmWeight, true);
  if (p.linkKernelSmWeight > 4)
    throw std::invalid_argument("device profile field 'linkKernelSmWeight' = " + std::to_string(p.linkKernelSmWeight) +
                                ": allowed 0 to 4 (the compute kernels' worth of SMs one kernel waiting on the host "
                                "link keeps; calibrate measures it)");
  r.number("managedMigrationGBps", p.managedMigrationGBps, false);
  r.curve("managedGpuFaultCurve", p.managedGpuFaultCurve);
  r.curve("managedCpuFaultCurve", p.managedCpuFaultCurve);
  r.curve("managedCpuWriteFaultCurve", p.managedCpuWriteFaultCurve);
  r.curve("prefetchToDeviceCurve", p.prefetchToDeviceCurve);
  r.curve("prefetchToHostCurve", p.prefetchToHostCurve);
  r.numberUpTo("prefetchAfterKernelNs", p.prefetchAfterKernelNs, 10e6,
               "0 to 10000000 ns (the wait of a prefetch queued behind a kernel; calibrate measures it)");
  r.number("modelGflops", p.modelGflops, false);
  r.number("deviceMemoryGBps", p.deviceMemoryGBps, false);
  r.numberUpTo("modelMemoryGBps", p.modelMemoryGBps, 100e3,
               "0 to 100000 GB/s (the model kernel's own loads and stores; calibrate measures it, 0 = they hide "
               "behind its compute)");
  r.points("modelKernelBlocksCurve", p.modelKernelBlocksCurve, "blocks", &KernelBlocksPoint::blocks, 1,
           std::int64_t(kModelKernelMaxBlocks), "factor", &KernelBlocksPoint::factor);
  r.number("gemmTflops", p.gemmTflops, false);
  r.gemmCurve("lightGemmCurve", p.lightGemmCurve);
  r.gemmCurve("heavyGemmCurve", p.heavyGemmCurve);
  r.number("kernelGapNs", p.kernelGapNs, true);
  r.number("kernelFixedNs", p.kernelFixedNs, true);
  r.number("streamDependencyNs", p.streamDependencyNs, true);
  r.number("kernelLaunchNs", p.kernelLaunchNs, true);
  r.number("lightGemmCallNs", p.lightGemmCallNs, true);
  r.number("heavyGemmCallNs", p.heavyGemmCallNs, true);
  r.number("memcpyAsyncCallNs", p.memcpyAsyncCallNs, true);
  r.number("memcpySyncCallNs", p.memcpySyncCallNs, true);
  r.number("eventRecordNs", p.eventRecordNs, true);
  r.number("syncWakeNs", p.syncWakeNs, true);
  r.number("syncSleepWakeNs", p.syncSleepWakeNs, true);
  r.number("syncSleepAfterNs", p.syncSleepAfterNs, true);
  r.boolean("memcpySyncSleeps", p.memcpySyncSleeps);
  r.boolean("pageableMemcpySyncSleeps", p.pageableMemcpySyncSleeps);
  r.number("spinSyncWakeNs", p.spinSyncWakeNs, true);
  r.number("yieldSyncWakeNs", p.yieldSyncWakeNs, true);
  r.number("hostOpOverheadNs", p.hostOpOverheadNs, true);
  r.number("hostBatchOverheadNs", p.hostBatchOverheadNs, true);
  r.number("hostPendingOpNs", p.hostPendingOpNs, true);
  r.numberUpTo("recorderFlushNsPerOp", p.recorderFlushNsPerOp, 1e5,
               "0 to 100000 ns (what the recorder's periodic CUPTI flush costs per op recorded; calibrate "
               "measures it, 0 = an uninstrumented program)");
  r.number("syncReturnNs", p.syncReturnNs, true);
  r.number("cpuNsPerOp", p.cpuNsPerOp, true);
  r.number("cpuPreprocessNsPerByte", p.cpuPreprocessNsPerByte, true);
  r.number("cpuPostprocessNsPerByte", p.cpuPostprocessNsPerByte, true);
  r.number("cpuPreprocessNsPerOp", p.cpuPreprocessNsPerOp, true);
  r.number("cpuPostprocessNsPerOp", p.cpuPostprocessNsPerOp, true);
  r.roundsCurve("cpuPreprocessRoundsCurve", p.cpuPreprocessRoundsCurve);
  r.roundsCurve("cpuPostprocessRoundsCurve", p.cpuPostprocessRoundsCurve);
  r.speedups("cpuWorkerSpeedup", p.cpuWorkerSpeedup);
  r.lateWorkers("cpuStageLateWorker", p.cpuStageLateWorker);
  r.handoffs("cpuStageHandoff", p.cpuStageHandoff);
  r.callsAfterStage("callAfterCpuStage", p.callAfterCpuStage);
  r.streamSpeedups("managedFaultStreamsSpeedup", p.managedFaultStreamsSpeedup);
  r.sizedStreamSpeedups("managedFaultStreamsSpeedupBySize", p.managedFaultStreamsSpeedupBySize);
  r.sizedWorkerSpeedups("managedCpuWriteFaultWorkers", p.managedCpuWriteFaultWorkers);
  r.sizedWorkerSpeedups("managedCpuReadFaultWorkers", p.managedCpuReadFaultWorkers);
  r.streamSpeedups("mappedStreamsSpeedup", p.mappedStreamsSpeedup);
  r.slotsSlowdown("managedSlotsSlowdown", p.managedSlotsSlowdown);
  r.slotsSlowdown("managedSlotsCpuSlowdown", p.managedSlotsCpuSlowdown);
  r.bytes("deviceMemoryBytes", p.deviceMemoryBytes);
  r.text("multiGpuSource", p.multiGpuSource);
  r.boolean("peerAccess", p.peerAccess);
  r.text("peerLinkName", p.peerLinkName);
  r.number("peerGBps", p.peerGBps, false);
  r.curve("peerCopyCurve", p.peerCopyCurve);
  r.number("peerBidirectionalGBps", p.peerBidirectionalGBps, false);
  r.number("peerLatencyNs", p.peerLatencyNs, true);
  r.number("allreduceBusGBps", p.allreduceBusGBps, false);
  r.curve("allreduceBusCurve", p.allreduceBusCurve);
  r.integer("allreduceCurveGpus", p.allreduceCurveGpus, 2, 64);
  r.number("allreduceStepLatencyNs", p.allreduceStepLatencyNs, true);
  r.number("allreduceCallNs", p.allreduceCallNs, true);
  r.number("hostLinksGBps", p.hostLinksGBps, true);
  r.number("hostLinksH2dGBps", p.hostLinksH2dGBps, true);
  r.number("hostLinksD2hGBps", p.hostLinksD2hGBps, true);
  r.number("collectiveSmShare", p.collectiveSmShare, true);
  if (p.collectiveSmShare >= 1)
    throw std::invalid_argument("device profile field 'collectiveSmShare' = " + std::to_string(p.collectiveSmShare) +
                                ": allowed 0 to below 1 (the share of the SMs NCCL's kernels take)");
  r.number("collectiveYieldShare", p.collectiveYieldShare, true);
  if (p.collectiveYieldShare > 1)
    throw std::invalid_argument(
        "device profile field 'collectiveYieldShare' = " + std::to_string(p.collectiveYieldShare) +
        ": allowed 0 to 1 (0: kernels give way to NCCL, 1: NCCL gives way to kernels)");
  // Host times per call or op that several GPUs add: microseconds, never a millisecond.
  auto multiGpuHostNs = [&](const char* key, double& field, const char* per) {
    r.number(key, field, true);
    if (field > 1e6)
      throw std::invalid_argument("device profile field '" + std::string(key) + "' = " + std::to_string(field) +
                                  " ns: allowed 0 to 1000000 (a few microseconds per " + per +
                                  "; recalibrate with 'pipescope-cli calibrate --gpus N')");
  };
  multiGpuHostNs("multiGpuCopySwitchNs", p.multiGpuCopySwitchNs, "call");
  multiGpuHostNs("multiGpuHostOpOverheadNs", p.multiGpuHostOpOverheadNs, "GPU op");
  r.validation("validation", p.validation);
  r.rejectUnknown();
  return p;
}

std::vector<std::string> builtinProfileNames() {
  std::vector<std::string> names;
  for (const auto& [name, text] : embeddedProfiles()) names.emplace_back(name);
  return names;
}

std::optional<DeviceProfile> builtinProfile(const std::string& name) {
  for (const auto& [stem, text] : embeddedProfiles()) {
    if (stem != name) continue;
    // A broken built-in profile is a build bug; the profile tests parse every one.
    return profileFromJson(json::parse(text));
  }
  return std::nullopt;
}

std::optional<DeviceProfile> loadDeviceProfile(const std::string& nameOrPath, std::string& error) {
  try {
    if (auto p = builtinProfile(nameOrPath)) return p;
  } catch (const std::exception& e) {
    error = "built-in device profile '" + nameOrPath + "' is broken: " + e.what();
    return std::nullopt;
  }
  std::string path = nameOrPath;
  std::ifstream in(path);
  // A bare name may be one of this machine's calibrations (the user's data folder).
  const MachineContext machine = MachineContext::current();
  if (!in && !machine.folder.empty() && nameOrPath.find('/') == std::string::npos) {
    path = (std::filesystem::path(machine.folder) / (nameOrPath + ".json")).string();
    in.open(path);
  }
  if (!in) {
    std::string known;
    for (const auto& n : builtinProfileNames()) known += (known.empty() ? "" : ", ") + n;
    std::string mine;
    for (const auto& n : machineProfileNames(machine)) mine += (mine.empty() ? "" : ", ") + n;
    error = "unknown device profile '" + nameOrPath + "': it is neither a built-in profile (" + known + ")" +
            (mine.empty() ? std::string() : ", nor a calibration of this machine (" + mine + ")") +
            " nor a readable JSON file";
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return profileFromJson(json::parse(text.str()));
  } catch (const json::parse_error& e) {
    error = "device profile file '" + path + "' is not valid JSON: " + e.what();
  } catch (const std::exception& e) {
    error = "device profile file '" + path + "': " + e.what();
  }
  return std::nullopt;
}

}  // namespace pipescope
