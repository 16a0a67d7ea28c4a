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

std::string machineHostNotice(double hostLaunchNs, const DeviceProfile& builtin, const std::string& calibrationPath) {
  char buf[600];
  const double ratio = builtin.kernelLaunchNs > 0 ? hostLaunchNs / builtin.kernelLaunchNs : 1;
  // Within 10 % the built-in profile's host is this one as far as the probe can tell.
  const char* effect = ratio > 1.1   ? "this host is slower: host-bound runs will take longer than predicted"
                       : ratio < 0.9 ? "this host is faster: host-bound runs will be quicker than predicted"
                                     : "close to the host the built-in profile was calibrated on";
  std::snprintf(buf, sizeof buf,
                "this host launches a kernel in %.1f us, %.2fx the %.1f us of the built-in profile '%s': %s. "
                "Calibrate this machine once and predictions use it from then on: 'pipescope-cli calibrate' "
                "(about a minute) or 'pipescope-cli calibrate --quick' (about 20 s)",
                hostLaunchNs / 1e3, ratio, builtin.kernelLaunchNs / 1e3, builtin.name.c_str(), effect);
  std::string text = buf;
  if (!calibrationPath.empty()) text += "; it is saved as " + calibrationPath;
  return text;
}

}  // namespace pipescope
