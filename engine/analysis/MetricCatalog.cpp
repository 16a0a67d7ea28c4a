#include "analysis/MetricCatalog.h"

#include "analysis/AnalysisFormat.h"
#include "config/PipelineConfig.h"

namespace pipescope {

const std::vector<MetricInfo>& allMetrics() {
  using enum MetricId;
  using U = MetricUnit;
  using B = BetterWhen;
  static const std::vector<MetricInfo> all = {
      {Makespan, "makespan_ns", "makespan", U::Nanoseconds, B::Lower},
      {BatchesPerSec, "batches_per_s", "batches/s", U::PerSecond, B::Higher},
      {SamplesPerSec, "samples_per_s", "samples/s", U::PerSecond, B::Higher},
      {H2DGBps, "h2d_gbps_busy", "H2D GB/s (while copying)", U::GBps, B::Higher},
      {D2HGBps, "d2h_gbps_busy", "D2H GB/s (while copying)", U::GBps, B::Higher},
      {H2DGBpsWall, "h2d_gbps_wall", "H2D GB/s (over the run)", U::GBps, B::Higher},
      {D2HGBpsWall, "d2h_gbps_wall", "D2H GB/s (over the run)", U::GBps, B::Higher},
      {H2DBusy, "h2d_busy", "H2D engine busy", U::Fraction, B::Neither},
      {ComputeBusy, "compute_busy", "compute busy", U::Fraction, B::Higher},
      {D2HBusy, "d2h_busy", "D2H engine busy", U::Fraction, B::Neither},
      {CopyBusy, "copy_busy", "any copy busy", U::Fraction, B::Neither},
      {SubmitThreadBusy, "submit_thread_busy", "submit thread busy", U::Fraction, B::Neither},
      {WorkersBusy, "workers_busy", "CPU workers busy", U::Fraction, B::Neither},
      {GpuIdle, "gpu_idle", "GPU idle", U::Fraction, B::Lower},
      {ComputeOverlap, "compute_overlapped_by_copy", "overlap (kernel time with a copy beside it)", U::Fraction,
       B::Higher},
      {CopyOverlap, "copy_overlapped_by_compute", "overlap (copy time with a kernel beside it)", U::Fraction,
       B::Higher},
      {Efficiency, "efficiency", "efficiency (bound / makespan)", U::Fraction, B::Higher},
      {H2DBytes, "h2d_bytes", "H2D bytes", U::Bytes, B::Neither},
      {D2HBytes, "d2h_bytes", "D2H bytes", U::Bytes, B::Neither},
      {ExposedComm, "exposed_comm_fraction", "exposed communication (share of each GPU's time)", U::Fraction,
       B::Lower},
      {CommOverlap, "comm_overlap", "communication beside a kernel", U::Fraction, B::Higher},
      {IdleCompute, "idle_compute", "compute engines idle (mean over the GPUs)", U::Fraction, B::Lower},
  };
  return all;
}

const MetricInfo& metricInfo(MetricId id) { return allMetrics()[std::size_t(id)]; }

double metricValue(const Metrics& m, MetricId id) {
  switch (id) {
    case MetricId::Makespan: return m.makespanNs;
    case MetricId::BatchesPerSec: return m.batchesPerSec;
    case MetricId::SamplesPerSec: return m.samplesPerSec;
    case MetricId::H2DGBps: return m.h2dGBpsBusy;
    case MetricId::D2HGBps: return m.d2hGBpsBusy;
    case MetricId::H2DGBpsWall: return m.h2dGBpsWall;
    case MetricId::D2HGBpsWall: return m.d2hGBpsWall;
    case MetricId::H2DBusy: return m.h2dBusy;
    case MetricId::ComputeBusy: return m.computeBusy;
    case MetricId::D2HBusy: return m.d2hBusy;
    case MetricId::CopyBusy: return m.copyBusy;
    case MetricId::SubmitThreadBusy: return m.submitThreadBusy;
    case MetricId::WorkersBusy: return m.workersBusy;
    case MetricId::GpuIdle: return m.gpuIdle;
    case MetricId::ComputeOverlap: return m.computeOverlappedByCopy;
    case MetricId::CopyOverlap: return m.copyOverlappedByCompute;
    case MetricId::Efficiency: return m.efficiency;
    case MetricId::H2DBytes: return double(m.h2dBytes);
    case MetricId::D2HBytes: return double(m.d2hBytes);
    case MetricId::ExposedComm: return m.multiGpu ? m.multiGpu->exposedCommFraction : 0.0;
    case MetricId::CommOverlap: return m.multiGpu ? m.multiGpu->commOverlap : 0.0;
    case MetricId::IdleCompute: return m.multiGpu ? m.multiGpu->idleCompute : 1.0 - m.computeBusy;
  }
  return 0;
}

std::string formatMetric(MetricId id, double v) {
  switch (metricInfo(id).unit) {
    case MetricUnit::Nanoseconds: return formatNs(v);
    case MetricUnit::PerSecond:
      if (v >= 1e6) return formatFigure(v / 1e6) + " M/s";
      if (v >= 1e4) return formatFigure(v / 1e3) + " k/s";
      return formatFigure(v) + " /s";
    case MetricUnit::GBps: return formatFigure(v) + " GB/s";
    case MetricUnit::Fraction: return formatPercent(v);
    case MetricUnit::Bytes: return formatBytes(std::uint64_t(v < 0 ? 0 : v));
  }
  return formatFigure(v);
}

}  // namespace pipescope
