#include "analysis/DerivedConfig.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "analysis/SimulatedRun.h"
#include "config/ModelWork.h"
#include "sim/StageCosts.h"

namespace pipescope {

std::optional<DeviceProfile> profileForTrace(const DeviceInfo& device, const std::string& requested, std::string& why,
                                             const MachineContext& machine) {
  if (!requested.empty()) {
    std::string error;
    auto p = loadDeviceProfile(requested, error);
    if (!p) {
      why = error;
      return std::nullopt;
    }
    why = "device profile '" + p->name + "' (asked for)";
    return p;
  }
  if (!device.name.empty()) {
    MachineProfileLookup mine = findMachineProfile(machine, device.name);
    if (mine.status == MachineProfileLookup::Status::Found) {
      why = "device profile '" + mine.profile->name + "': this machine's own calibration of the trace's device (" +
            device.name + ")";
      return std::move(mine.profile);
    }
  }
  std::optional<DeviceProfile> any;
  for (const auto& name : builtinProfileNames()) {
    auto p = builtinProfile(name);
    if (!p || device.name.empty() || p->deviceName != device.name) continue;
    if (p->source.rfind("calibrated", 0) == 0) {
      why = "device profile '" + p->name + "': calibrated on the trace's device (" + device.name + ")";
      return p;
    }
    if (!any) any = p;
  }
  if (any) {
    why = "device profile '" + any->name + "': built for the trace's device (" + device.name + "), not calibrated";
    return any;
  }
  why = "device profile 'h200': no built-in profile describes the trace's device (" +
        (device.name.empty() ? std::string("not named in the trace") : device.name) +
        "); pick one with --profile, or calibrate one on that GPU";
  return builtinProfile("h200");
}

namespace {

struct Facts {
  std::int64_t iterations = 0;
  double h2dBytes = 0, d2hBytes = 0;  // per iteration
  double kernelNs = 0, hostNs = 0;    // per iteration
  int streams = 1;
  bool pageable = false, blocking = false;
  std::int64_t samples = 0;
};

Facts factsOf(const Trace& trace, const Metrics& m) {
  Facts f;
  f.iterations = m.batches;
  const double n = double(std::max<std::int64_t>(m.batches, 1));
  f.h2dBytes = double(m.h2dBytes) / n;
  f.d2hBytes = double(m.d2hBytes) / n;
  f.kernelNs = m.perBatchOccupancy.kernelNs;
  f.hostNs = m.hostPerBatchNs;
  std::set<int> streams;
  trace.ops().snapshot().forEach([&](const Op& op) {
    if (!isGpuKind(op.kind)) return;
    if (op.stream != kNoStream) streams.insert(op.stream);
    if (isCopyKind(op.kind) && (op.flags & kOpPageable)) f.pageable = true;
    if (isCopyKind(op.kind) && (op.flags & kOpBlockingCall)) f.blocking = true;
  });
  f.streams = std::clamp(int(streams.size()), 1, limits::kMaxStreams);
  f.samples = trace.iterations().samplesPerIteration;
  return f;
}

// Sets the CPU stages so one iteration's host work takes about `hostNs` on the
// profile: rounds of the stage whose round is shorter (finer steps), the remainder on
// the other stage when it helps. The simulator's own API costs come on top; the
// refinement loop takes them out.
void setHostWork(PipelineConfig& c, const DeviceProfile& p, double hostNs, std::vector<std::string>* notes) {
  c.preprocessOpsPerByte = 0;
  c.postprocessOpsPerByte = 0;
  if (hostNs <= 0) return;
  const double inBytes = double(c.batchBytes()), outBytes = double(c.d2hBytes());
  struct Stage {
    double* opsPerByte;
    double roundNs, fixedNs;
  };
  Stage pre{&c.preprocessOpsPerByte, inBytes * p.cpuNsPerOp, inBytes * p.cpuPreprocessNsPerByte};
  Stage post{&c.postprocessOpsPerByte, outBytes * p.cpuNsPerOp, outBytes * p.cpuPostprocessNsPerByte};
  Stage& fine = post.roundNs > 0 && post.roundNs < pre.roundNs ? post : pre;
  Stage& coarse = &fine == &pre ? post : pre;
  double left = hostNs;
  // Whole rounds of the coarse stage first when one round still fits.
  if (coarse.roundNs > 0 && coarse.roundNs + coarse.fixedNs <= left) {
    const double rounds = std::floor((left - coarse.fixedNs) / coarse.roundNs);
    *coarse.opsPerByte = std::min(rounds, limits::kMaxCpuOpsPerByte);
    left -= coarse.fixedNs + *coarse.opsPerByte * coarse.roundNs;
  }
  if (fine.roundNs > 0 && left > fine.fixedNs + fine.roundNs / 2) {
    const double rounds = std::llround((left - fine.fixedNs) / fine.roundNs);
    if (rounds > limits::kMaxCpuOpsPerByte && notes)
      notes->push_back("the host time per iteration is larger than the CPU stages can express; capped");
    *fine.opsPerByte = std::clamp(double(rounds), 0.0, limits::kMaxCpuOpsPerByte);
  }
}

void setKernelWork(PipelineConfig& c, const DeviceProfile& p, double kernelNs) {
  // customModelKernelNs inverted: what is left of the kernel's time after its fixed
  // cost and (where the profile has that rate) its own bytes is FLOP time, at the
  // batch's grid's efficiency.
  const ModelKernelParts parts = modelKernelParts(p, c.batchBytes(), c.outputBytes(), 0.0);
  const double ns = modelKernelFlopShareNs(parts, kernelNs - p.kernelFixedNs);
  const double bytes = double(std::max<std::uint64_t>(c.batchBytes(), 1));
  const double flopNs = ns / modelKernelBlocksFactor(p, c.batchBytes() / 4);
  c.modelFlopsPerByte = std::clamp(flopNs * p.modelGflops / bytes, 0.0, limits::kMaxModelFlopsPerByte);
}

}  // namespace

DerivedConfig deriveConfig(const Trace& trace, const Metrics& metrics, const DeviceProfile& profile,
                           std::stop_token stop) {
  DerivedConfig d;
  d.profileName = profile.name;
  const Facts f = factsOf(trace, metrics);
  if (f.iterations <= 0) {
    const std::string why = trace.iterations().why;
    d.failure = "no configuration can be derived without iterations" + (why.empty() ? std::string() : ": " + why);
    return d;
  }
  d.traceNsPerIteration = metrics.makespanNs / double(f.iterations);
  PipelineConfig& c = d.config;
  c.mode = f.blocking ? TransferMode::Blocking : TransferMode::Async;
  c.memory = f.pageable ? HostMemory::Pageable : HostMemory::Pinned;
  c.streams = f.blocking ? 1 : f.streams;
  c.batchCount = int(std::min<std::int64_t>(f.iterations, limits::kMaxBatchCount));
  c.batchSamples = int(std::clamp<std::int64_t>(f.samples > 0 ? f.samples : 1, 1, limits::kMaxBatchSamples));
  if (f.samples <= 0)
    d.notes.push_back("the batch size is unknown (give --batch-size N): one iteration counts as one sample");
  double inBytes = f.h2dBytes;
  if (inBytes < 4) {
    c.residency = DataResidency::KeepResident;
    inBytes = std::max(f.d2hBytes, 4096.0);
    d.notes.push_back("the trace copies nothing to the GPU per iteration: the data stays resident");
  }
  c.sampleBytes = std::clamp<std::uint64_t>(std::uint64_t(std::ceil(inBytes / c.batchSamples)), 4,
                                            limits::kMaxSampleBytes);
  const double batchBytes = double(c.batchBytes());
  if (f.d2hBytes < 1) d.notes.push_back("the trace copies nothing back: the smallest copy back (4 bytes) stands in");
  c.outputRatio = std::clamp(std::max(f.d2hBytes, 4.0) / batchBytes, 1e-9, limits::kMaxOutputRatio);
  c.roiFraction = 1.0;
  c.normalizeKernel = false;
  c.model = ModelPreset::Custom;
  c.cpuWorkers = 1;
  c.sync = SyncMode::Blocking;

  // The host's time the simulator adds by itself: the calls of one batch.
  const double simApiNs = profile.kernelLaunchNs + 2 * profile.memcpyAsyncCallNs + profile.eventRecordNs;
  double hostNs = std::max(0.0, f.hostNs - simApiNs), kernelNs = f.kernelNs;
  d.hostNsPerIteration = f.hostNs;
  d.kernelNsPerIteration = f.kernelNs;
  for (int round = 0; round < 8 && !stop.stop_requested(); ++round) {
    setHostWork(c, profile, hostNs, round == 0 ? &d.notes : nullptr);
    setKernelWork(c, profile, kernelNs);
    const SimulatedRun run = simulate(c, profile, stop);
    ++d.simulations;
    if (!run.ok()) {
      d.failure = "the derived configuration does not simulate: " + run.outcome.message;
      return d;
    }
    d.simulatedNsPerIteration = run.metrics.makespanNs / double(std::max(c.batchCount, 1));
    d.error = d.simulatedNsPerIteration / d.traceNsPerIteration - 1.0;
    if (std::fabs(d.error) < 0.02) break;
    // Scale the work of the resource that sets the simulated pace.
    const double ratio = d.traceNsPerIteration / d.simulatedNsPerIteration;
    switch (run.metrics.critical) {
      case CriticalResource::Host: hostNs *= ratio; break;
      case CriticalResource::ComputeEngine: kernelNs *= ratio; break;
      default:
        hostNs *= ratio;
        kernelNs *= ratio;
        break;
    }
  }
  if (f.hostNs > 0)
    d.notes.push_back("the host's time per iteration is CPU work per byte here: in a sweep it grows with the batch, "
                      "while a framework's per-kernel dispatch does not, so bigger batches are predicted "
                      "conservatively");
  if (std::fabs(d.error) > 0.10)
    d.notes.push_back("the simulation misses the trace by more than 10%: the device profile's copy rates or "
                      "latencies differ from the traced machine's");
  return d;
}

std::vector<std::string> describeDerivedConfig(const DerivedConfig& d) {
  std::vector<std::string> out;
  if (!d.ok()) return {d.failure};
  const PipelineConfig& c = d.config;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s copies from %s memory, %d stream%s, %d samples x %s = %s in, %s back per iteration",
                std::string(toString(c.mode)).c_str(), std::string(toString(c.memory)).c_str(), c.streams,
                c.streams == 1 ? "" : "s", c.batchSamples, formatBytes(c.sampleBytes).c_str(),
                formatBytes(c.batchBytes()).c_str(), formatBytes(c.d2hBytes()).c_str());
  out.emplace_back(buf);
  std::snprintf(buf, sizeof buf,
                "GPU work: custom model at %.0f FLOP/byte (%.3f ms of kernels per iteration); host work: %.3f ms per "
                "iteration as CPU stages (preprocess %.0f, postprocess %.0f ops/byte), %s sync",
                c.modelFlopsPerByte, d.kernelNsPerIteration / 1e6, d.hostNsPerIteration / 1e6, c.preprocessOpsPerByte,
                c.postprocessOpsPerByte, std::string(toString(c.sync)).c_str());
  out.emplace_back(buf);
  std::snprintf(buf, sizeof buf,
                "simulated on '%s': %.3f ms per iteration vs %.3f ms in the trace (%+.1f%%, %d simulation%s)",
                d.profileName.c_str(), d.simulatedNsPerIteration / 1e6, d.traceNsPerIteration / 1e6, d.errorPercent(),
                d.simulations, d.simulations == 1 ? "" : "s");
  out.emplace_back(buf);
  for (const auto& n : d.notes) out.push_back("note: " + n);
  return out;
}

}  // namespace pipescope
