#include "RunSummary.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "Options.h"
#include "analysis/AnalysisJson.h"
#include "config/ConfigJson.h"

namespace pipescope::cli {

namespace {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string percent(double fraction) { return fmt("%.0f%%", fraction * 100.0); }

// Three significant figures, without a trailing ".0" for large numbers.
std::string figure(double v) {
  if (std::fabs(v) >= 100 || (v == std::round(v) && std::fabs(v) < 1e15)) return fmt("%.0f", v);
  if (std::fabs(v) >= 10) return fmt("%.1f", v);
  return fmt("%.2f", v);
}

std::string row(const std::string& label, const std::string& value) {
  constexpr std::size_t kLabel = 18;
  return "  " + label + std::string(label.size() < kLabel ? kLabel - label.size() : 1, ' ') + value + "\n";
}

std::string gpuWork(const PipelineConfig& c) {
  std::string s = c.normalizeKernel ? "normalize + " : "";
  if (c.model == ModelPreset::Custom)
    s += c.modelFlopsPerByte > 0 ? "custom model, " + figure(c.modelFlopsPerByte) + " FLOP/byte" : "no model";
  else
    s += std::string(toString(c.model)) + " model (GEMMs)";
  return s;
}

std::string bandwidthRow(double busy, double wall, std::uint64_t bytes) {
  if (bytes == 0) return "no copies";
  return figure(busy) + " GB/s while copying, " + figure(wall) + " GB/s over the run (" + formatBytes(bytes) + ")";
}

std::string laneBusyList(const Metrics& m) {
  std::string s;
  auto add = [&s](const std::string& what, double f) { s += (s.empty() ? "" : ", ") + what + " " + percent(f); };
  if (m.copyEngines <= 1) {
    add("copy engine", m.copyBusy);
    add("compute", m.computeBusy);
  } else {
    add("H2D engine", m.h2dBusy);
    add("compute", m.computeBusy);
    add("D2H engine", m.d2hBusy);
  }
  add("submit thread", m.submitThreadBusy);
  bool workers = false;
  for (const auto& l : m.lanes) workers = workers || l.kind == LaneKind::HostWorker;
  if (workers) add("CPU workers (mean)", m.workersBusy);
  return s;
}

std::string gpuSetup(const PipelineConfig& c) {
  std::string s = std::to_string(c.gpuCount()) + " (" + formatDeviceList(c.deviceOrdinals()) + "), ";
  if (c.isPipelineParallel())
    return s + "pipeline parallel: " + std::to_string(c.gpuCount()) + " stages, " + std::to_string(c.microBatches) +
           (c.microBatches == 1 ? " micro-batch" : " micro-batches") + " per batch, " +
           formatBytes(c.activationBytes) + " of activations per micro-batch and stage";
  s += "data parallel";
  if (c.allreduceBytes > 0)
    s += ", all-reduce of " + formatBytes(c.allreduceBytes) + " per step " +
         (c.buckets <= 1 ? std::string("after the kernels") : "in " + std::to_string(c.buckets) + " buckets");
  return s;
}

// Several GPUs: each GPU, the links, the communication.
std::string multiGpuRows(const MultiGpuMetrics& g) {
  std::string s;
  for (const GpuFigures& f : g.perGpu) {
    std::string v = "busy " + percent(f.busy) + ": kernels " + percent(f.computeBusy) + ", H2D " +
                    percent(f.h2dBusy) + ", D2H " + percent(f.d2hBusy);
    if (f.commNs > 0)
      v += ", communication " + percent(f.commBusy) + " (" + formatDuration(f.exposedCommNs) + " exposed)";
    v += ", " + std::to_string(f.batches) + (f.batches == 1 ? " batch" : " batches");
    s += row(f.name, v);
  }
  for (const LinkFigures& l : g.links)
    s += row("link", l.name + ": busy " + percent(l.busy) + ", " + formatBytes(l.bytes) + " at " +
                         figure(l.gbpsBusy) + " GB/s while copying");
  if (g.collectives > 0)
    s += row("all-reduce", std::to_string(g.collectives) + " calls, " + formatBytes(g.collectiveBytes) + " in " +
                               formatDuration(g.collectiveNs) + ": bus bandwidth " + figure(g.allreduceBusGBps) +
                               " GB/s");
  if (g.commNs > 0)
    s += row("communication", formatDuration(g.commNs) + " over the GPUs, " + percent(g.commOverlap) +
                                  " of it beside a kernel; exposed " + formatDuration(g.exposedCommNs) + " (" +
                                  percent(g.exposedCommFraction) + " of each GPU's time)");
  if (g.pipeline)
    s += row("bubble", "compute engines idle " + percent(g.idleCompute) + " of the time; GPipe's fill and drain " +
                           "alone leave " + percent(g.gpipeBubble) + " with " + std::to_string(g.microBatches) +
                           (g.microBatches == 1 ? " micro-batch" : " micro-batches"));
  return s;
}

// Limits, wait causes and advice (docs/analysis.md), after the bottleneck.
std::string analysisSection(const RunAnalysis& a) {
  std::string s;
  if (a.scaling) s += "Scaling\n  " + wrap(a.scaling->sentence, 100, 2) + "\n";
  s += "Limits\n";
  s += "  " + wrap(a.limits.positionSentence, 100, 2) + "\n";
  if (!a.limits.criticalSentence.empty()) s += "  " + wrap(a.limits.criticalSentence, 100, 2) + "\n";
  s += "Waits\n";
  for (const auto& line : a.waitSentences) s += "  " + wrap(line, 100, 2) + "\n";
  if (a.advice) {
    s += "Advice (predicted by the simulator, " + std::to_string(a.advice->simulatedBatches) + " batches)\n";
    if (!a.advice->error.empty())
      s += "  " + a.advice->error + "\n";
    else if (a.advice->items.empty())
      s += "  nothing the simulator tried is predicted to help by 3% or more.\n";
    for (std::size_t i = 0; i < a.advice->items.size(); ++i)
      s += "  " + std::to_string(i + 1) + ". " + wrap(a.advice->items[i].sentence, 100, 5) + "\n";
  }
  return s;
}

}  // namespace

std::string formatDuration(double ns) {
  const double a = std::fabs(ns);
  if (a < 1e3) return fmt("%.0f ns", ns);
  if (a < 1e6) return figure(ns / 1e3) + " µs";
  if (a < 1e9) return figure(ns / 1e6) + " ms";
  return figure(ns / 1e9) + " s";
}

std::string formatSummary(const RunReport& r) {
  const PipelineConfig& c = r.config;
  const Metrics& m = r.metrics;
  std::string s;
  if (!r.configKnown) {
    s += m.batches > 0 ? "Configuration\n  not recorded in this trace (imported): its iterations are the batches; "
                         "the derived configuration stands for it\n"
                       : "Configuration\n  not recorded in this trace (imported): samples and the ideal bound are "
                         "unknown\n";
  } else {
    s += "Configuration" + (r.presetName.empty() ? std::string() : " (preset " + r.presetName + ")") + "\n";
    s += row("transfers", std::string(toString(c.mode)) + ", " + std::string(toString(c.memory)) + " host memory, " +
                              std::to_string(c.streams) + (c.streams == 1 ? " stream" : " streams") + ", " +
                              std::string(toString(c.order)));
    s += row("batch", std::to_string(c.batchSamples) + " samples x " + formatBytes(c.sampleBytes) + " = " +
                          formatBytes(c.batchBytes()) + ", " +
                          (c.runsUntilStopped() ? std::string("until stopped") : std::to_string(c.batchCount) + " batches"));
    s += row("GPU work", gpuWork(c));
    s += row("CPU work", std::to_string(c.cpuWorkers) + (c.cpuWorkers == 1 ? " worker" : " workers") + ", preprocess " +
                             figure(c.preprocessOpsPerByte) + " ops/byte, postprocess " +
                             figure(c.postprocessOpsPerByte) + " ops/byte");
    s += row("data movement", std::string(toString(c.residency)) + ", output " + figure(c.outputRatio) + "x input, ROI " +
                                  figure(c.roiFraction) + ", " + std::to_string(c.transferChunks) +
                                  (c.transferChunks == 1 ? " chunk" : " chunks") + " per copy, " +
                                  formatBytes(c.d2hBytes()) + " back per batch");
    s += row("sync", std::string(toString(c.sync)));
    if (c.isMultiGpu() || !c.devices.empty()) s += row("GPUs", gpuSetup(c));
  }

  s += "Device\n";
  const std::string device = r.device.backend == "simulator"
                                 ? "simulator, device profile '" + r.device.profile + "'"
                                 : r.device.backend + ": " + r.device.summary();
  s += row("backend", device +
                          (r.device.timingSource.empty() ? "" : " (timing: " + r.device.timingSource + ")"));
  if (!r.backendNote.empty()) s += row("note", r.backendNote);
  if (!r.device.note.empty() && r.device.note != r.backendNote) s += row("note", r.device.note);

  const std::string state = r.stoppedBy.empty() ? std::string(toString(r.outcome.state)) : "stopped by " + r.stoppedBy;
  s += "Results (" + state + ", " + std::to_string(m.batches) + " batches, " +
       std::to_string(m.ops) + " ops)\n";
  if (r.droppedOps > 0)
    s += row("note", "the oldest " + std::to_string(r.droppedOps) +
                         " ops were dropped to bound memory; figures cover the ops kept");
  if (m.ops == 0) {
    s += row("makespan", "nothing was recorded");
  } else {
    s += row("makespan", formatDuration(m.makespanNs));
    s += row("throughput", figure(m.batchesPerSec) + " batches/s, " + figure(m.samplesPerSec) + " samples/s");
    s += row("H2D", bandwidthRow(m.h2dGBpsBusy, m.h2dGBpsWall, m.h2dBytes));
    s += row("D2H", bandwidthRow(m.d2hGBpsBusy, m.d2hGBpsWall, m.d2hBytes));
    s += row("busy", laneBusyList(m));
    s += row("GPU idle", percent(m.gpuIdle));
    s += row("overlap", percent(m.computeOverlappedByCopy) + " of kernel time has a copy beside it; " +
                            percent(m.copyOverlappedByCompute) + " of copy time has a kernel beside it");
    if (m.multiGpu) s += multiGpuRows(*m.multiGpu);
    if (m.multiGpu)
      s += row("ideal bound", formatDuration(m.idealBoundNs) + " (critical: " + m.multiGpu->critical + ")");
    else
      s += row("ideal bound", formatDuration(m.idealBoundNs) + " (per batch: H2D " +
                                formatDuration(m.perBatchOccupancy.h2dNs) + ", kernels " +
                                formatDuration(m.perBatchOccupancy.kernelNs) + ", D2H " +
                                formatDuration(m.perBatchOccupancy.d2hNs) + ", host " +
                                formatDuration(m.hostPerBatchNs) + "; " + std::to_string(m.copyEngines) +
                                (m.copyEngines == 1 ? " copy engine)" : " copy engines)"));
    s += row("efficiency", percent(m.efficiency) + " (ideal bound / makespan)");
  }
  s += "Bottleneck\n  " + m.bottleneckSentence + "\n";
  if (r.analysis && m.ops > 0) s += analysisSection(*r.analysis);
  if (!r.tracePath.empty()) s += "Trace written to " + r.tracePath + "\n";
  return s;
}

nlohmann::json summaryJson(const RunReport& r) {
  using nlohmann::json;
  const Metrics& m = r.metrics;
  json lanes = json::array();
  for (const auto& l : m.lanes)
    lanes.push_back({{"lane", l.lane}, {"kind", toString(l.kind)}, {"name", l.name}, {"busy_ns", l.busyNs},
                     {"busy_fraction", l.fraction}});
  json j;
  j["pipescope_summary_version"] = 1;
  j["preset"] = r.presetName.empty() ? json(nullptr) : json(r.presetName);
  j["config"] = r.configKnown ? configToJson(r.config) : json(nullptr);
  j["device"] = {{"backend", r.device.backend},
                 {"name", r.device.name},
                 {"summary", r.device.summary()},
                 {"profile", r.device.profile},
                 {"copy_engines", r.device.copyEngines},
                 {"timing_source", r.device.timingSource},
                 {"note", r.backendNote.empty() ? r.device.note : r.backendNote}};
  j["outcome"] = {{"state", toString(r.outcome.state)},
                  {"message", r.outcome.message},
                  {"signal", r.stoppedBy.empty() ? json(nullptr) : json(r.stoppedBy)}};
  j["metrics"] = {
      {"batches", m.batches},
      {"samples", m.samples},
      {"ops", m.ops},
      {"dropped_ops", r.droppedOps},
      {"makespan_ns", m.makespanNs},
      {"makespan_ms", m.makespanNs / 1e6},
      {"batches_per_s", m.batchesPerSec},
      {"samples_per_s", m.samplesPerSec},
      {"h2d_bytes", m.h2dBytes},
      {"d2h_bytes", m.d2hBytes},
      {"h2d_gbps_busy", m.h2dGBpsBusy},
      {"h2d_gbps_wall", m.h2dGBpsWall},
      {"d2h_gbps_busy", m.d2hGBpsBusy},
      {"d2h_gbps_wall", m.d2hGBpsWall},
      {"h2d_busy", m.h2dBusy},
      {"d2h_busy", m.d2hBusy},
      {"copy_busy", m.copyBusy},
      {"compute_busy", m.computeBusy},
      {"submit_thread_busy", m.submitThreadBusy},
      {"workers_busy", m.workersBusy},
      {"gpu_idle", m.gpuIdle},
      {"compute_overlapped_by_copy", m.computeOverlappedByCopy},
      {"copy_overlapped_by_compute", m.copyOverlappedByCompute},
      {"per_batch_ns",
       {{"h2d", m.perBatch.h2dNs},
        {"kernel", m.perBatch.kernelNs},
        {"d2h", m.perBatch.d2hNs},
        {"preprocess", m.perBatch.preprocessNs},
        {"postprocess", m.perBatch.postprocessNs},
        {"api", m.perBatch.apiNs}}},
      {"occupancy_per_batch_ns",
       {{"h2d", m.perBatchOccupancy.h2dNs},
        {"kernel", m.perBatchOccupancy.kernelNs},
        {"d2h", m.perBatchOccupancy.d2hNs},
        {"preprocess", m.perBatchOccupancy.preprocessNs},
        {"postprocess", m.perBatchOccupancy.postprocessNs},
        {"api", m.perBatchOccupancy.apiNs}}},
      {"host_per_batch_ns", m.hostPerBatchNs},
      {"critical_resource", toString(m.critical)},
      {"copy_engines", m.copyEngines},
      {"ideal_bound_ns", m.idealBoundNs},
      {"ideal_bound_ms", m.idealBoundNs / 1e6},
      {"efficiency", m.efficiency},
      {"bottleneck", toString(m.bottleneck)},
      {"bottleneck_sentence", m.bottleneckSentence},
      {"lanes", lanes},
      {"multi_gpu", m.multiGpu ? multiGpuToJson(*m.multiGpu) : json(nullptr)}};
  j["trace"] = r.tracePath.empty() ? json(nullptr) : json(r.tracePath);
  j["analysis"] = r.analysis ? runAnalysisToJson(*r.analysis) : json(nullptr);
  return j;
}

}  // namespace pipescope::cli
