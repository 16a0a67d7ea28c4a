#include "sim/HostSpeed.h"

#include <cstdio>

#include "metrics/Spread.h"

namespace pipescope {

namespace {

/// Whether nothing else on the host competes with a row's launches: no CPU stages
/// (their workers and hand-offs), and copies the GPU's engines do alone (pageable
/// copies are staged by driver threads, managed pages moved by fault handling on the
/// CPU). On an H100 host the launches of such competing rows took 2-10x the bare cost.
bool launchesRunAlone(const PipelineConfig& c) {
  const bool cpuStages = c.preprocessOpsPerByte > 0 || c.postprocessOpsPerByte > 0;
  const bool engineCopies =
      c.memory == HostMemory::Pinned || c.memory == HostMemory::Registered || c.memory == HostMemory::Mapped;
  return !cpuStages && engineCopies;
}

}  // namespace

std::optional<HostSpeed> hostSpeedOf(const ValidationReport& report, const DeviceProfile& profile) {
  if (profile.kernelLaunchNs <= 0) return std::nullopt;
  std::vector<double> alone, all;
  for (const ValidationRow& r : report.rows) {
    if (!r.ok() || r.measuredLaunchNs <= 0) continue;
    all.push_back(r.measuredLaunchNs);
    if (launchesRunAlone(r.config)) alone.push_back(r.measuredLaunchNs);
  }
  HostSpeed s;
  s.aloneRows = !alone.empty();
  std::vector<double>& launches = s.aloneRows ? alone : all;
  if (launches.empty()) return std::nullopt;
  s.rows = int(launches.size());
  s.measuredLaunchNs = spreadOf(std::move(launches)).median;
  s.ratio = s.measuredLaunchNs / profile.kernelLaunchNs;
  return s;
}

std::string describeHostSpeed(const HostSpeed& s, const DeviceProfile& profile) {
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "host speed: the measured runs' kernel launches took %.1f us (median over %d rows%s), %.2fx the %.1f "
                "us the profile was calibrated with",
                s.measuredLaunchNs / 1e3, s.rows,
                s.aloneRows ? " where nothing else on the host competed with them" : "", s.ratio,
                profile.kernelLaunchNs / 1e3);
  return buf;
}

}  // namespace pipescope
