#include "io/CsvExport.h"

#include <cstdio>
#include <vector>

#include "io/OutputFile.h"

namespace pipescope {

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

void writeOpsCsv(const Trace& trace, std::ostream& out) {
  const TraceView ops = trace.ops().snapshot();
  const std::vector<Lane> lanes = trace.lanes();
  const std::vector<std::string> names = trace.names();
  std::vector<std::string> laneNames(lanes.size());
  for (std::size_t i = 0; i < lanes.size(); ++i) laneNames[i] = csvField(lanes[i].name);
  std::vector<std::string> opNames(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) opNames[i] = csvField(names[i]);
  out << "index,kind,name,lane,lane_name,engine_lane,engine_lane_name,batch,stream,bytes,submit_ns,ready_ns,start_ns,"
         "end_ns,duration_ns,stream_wait_ns,engine_wait_ns,gbps,correlation,flags,device\n";
  // The GPU an op ran on: its lane's, else its engine lane's (empty for host work).
  auto deviceOf = [&](const Op& op) {
    if (op.lane < lanes.size() && lanes[op.lane].device >= 0) return lanes[op.lane].device;
    if (op.engineLane < lanes.size() && lanes[op.engineLane].device >= 0) return lanes[op.engineLane].device;
    return kSharedLane;
  };
  std::string row;
  for (std::uint64_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    row.clear();
    row += std::to_string(ops.begin() + i) + ',' + std::string(toString(op.kind)) + ',';
    row += op.name != 0 && op.name < names.size() ? opNames[op.name] : std::string(toString(op.kind));
    row += ',';
    if (op.lane < lanes.size())
      row += std::to_string(op.lane) + ',' + laneNames[op.lane];
    else
      row += ',';
    row += ',';
    if (op.engineLane < lanes.size())
      row += std::to_string(op.engineLane) + ',' + laneNames[op.engineLane];
    else
      row += ',';
    row += ',';
    row += (op.batch == kNoBatch ? std::string() : std::to_string(op.batch)) + ',';
    row += (op.stream == kNoStream ? std::string() : std::to_string(op.stream)) + ',';
    row += std::to_string(op.bytes) + ',' + std::to_string(op.submit) + ',' + std::to_string(op.ready) + ',' +
           std::to_string(op.start) + ',' + std::to_string(op.end) + ',' + std::to_string(op.duration()) + ',' +
           std::to_string(op.streamWait()) + ',' + std::to_string(op.engineWait()) + ',';
    if (op.bytes != 0 && op.duration() > 0) {
      char g[32];
      std::snprintf(g, sizeof g, "%.4f", double(op.bytes) / double(op.duration()));
      row += g;
    }
    row += ',' + std::to_string(op.correlation) + ',' + std::to_string(op.flags) + ',';
    if (const int device = deviceOf(op); device >= 0) row += std::to_string(device);
    row += '\n';
    out << row;
  }
}

void saveOpsCsv(const Trace& trace, const std::string& path) {
  writeOutputFile(path, [&](std::ostream& out) { writeOpsCsv(trace, out); });
}

void writeMetricsCsv(const Metrics& m, std::ostream& out) {
  out << "metric,value,unit\n";
  auto row = [&](const std::string& name, double v, const char* unit) {
    char b[64];
    std::snprintf(b, sizeof b, "%.17g", v);
    out << csvField(name) << ',' << b << ',' << unit << '\n';
  };
  row("batches", double(m.batches), "count");
  row("samples", double(m.samples), "count");
  row("ops", double(m.ops), "count");
  row("makespan", m.makespanNs, "ns");
  row("batches per second", m.batchesPerSec, "1/s");
  row("samples per second", m.samplesPerSec, "1/s");
  row("H2D bytes", double(m.h2dBytes), "bytes");
  row("D2H bytes", double(m.d2hBytes), "bytes");
  row("H2D busy time", m.h2dBusyNs, "ns");
  row("D2H busy time", m.d2hBusyNs, "ns");
  row("H2D bandwidth while copying", m.h2dGBpsBusy, "GB/s");
  row("H2D bandwidth over the run", m.h2dGBpsWall, "GB/s");
  row("D2H bandwidth while copying", m.d2hGBpsBusy, "GB/s");
  row("D2H bandwidth over the run", m.d2hGBpsWall, "GB/s");
  row("compute busy", m.computeBusy, "fraction");
  row("H2D busy", m.h2dBusy, "fraction");
  row("D2H busy", m.d2hBusy, "fraction");
  row("copy busy", m.copyBusy, "fraction");
  row("submit thread busy", m.submitThreadBusy, "fraction");
  row("CPU workers busy", m.workersBusy, "fraction");
  row("GPU idle", m.gpuIdle, "fraction");
  row("compute overlapped by a copy", m.computeOverlappedByCopy, "fraction");
  row("copy overlapped by compute", m.copyOverlappedByCompute, "fraction");
  row("H2D per batch", m.perBatch.h2dNs, "ns");
  row("kernel per batch", m.perBatch.kernelNs, "ns");
  row("D2H per batch", m.perBatch.d2hNs, "ns");
  row("preprocess per batch", m.perBatch.preprocessNs, "ns");
  row("postprocess per batch", m.perBatch.postprocessNs, "ns");
  row("copy engines assumed", m.copyEngines, "count");
  row("ideal bound", m.idealBoundNs, "ns");
  row("efficiency", m.efficiency, "fraction");
  out << "bottleneck," << csvField(std::string(toString(m.bottleneck))) << ",\n";
  out << "bottleneck reason," << csvField(m.bottleneckSentence) << ",\n";
  for (const auto& l : m.lanes) row("lane busy: " + l.name, l.fraction, "fraction");
}

void saveMetricsCsv(const Metrics& m, const std::string& path) {
  writeOutputFile(path, [&](std::ostream& out) { writeMetricsCsv(m, out); });
}

}  // namespace pipescope
