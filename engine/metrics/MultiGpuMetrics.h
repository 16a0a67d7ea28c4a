#pragma once
// Figures of a run over several GPUs (docs/analysis.md, "Several GPUs"): each GPU's
// busy time, its communication and how much of it no kernel hid (exposed
// communication, as Holistic Trace Analysis defines it for PyTorch traces), the
// links, the collectives' bus bandwidth, and the ideal bound with the links and the
// collectives as resources. computeMetrics fills Metrics::multiGpu with these for
// every trace whose lanes span more than one GPU.
#include <cstdint>
#include <string>
#include <vector>

#include "config/PipelineConfig.h"
#include "trace/DeviceInfo.h"
#include "trace/Lane.h"
#include "trace/RankInfo.h"
#include "trace/TraceStore.h"

namespace pipescope {

struct GpuFigures {
  int device = 0;             ///< index into the trace's devices (Lane::device)
  std::string name;           ///< "GPU2" (by CUDA ordinal); merged ranks: "rank 2 · GPU0"
  std::int64_t batches = 0;   ///< batches whose kernels ran on it
  double busy = 0;            ///< fraction of the makespan with any of its engines working
  double computeBusy = 0;     ///< ... with a kernel running (collectives not included)
  double h2dBusy = 0;
  double d2hBusy = 0;
  double commBusy = 0;        ///< ... with a collective or an outgoing peer copy running
  double commNs = 0;          ///< union of its collectives and outgoing peer copies
  double exposedCommNs = 0;   ///< the part of commNs with no kernel running on it
  double overlappedCommNs = 0;  ///< the part with a kernel beside it
};

struct LinkFigures {
  std::uint16_t lane = 0;
  std::string name;  ///< "GPU0→GPU1 NVLink"
  int from = 0, to = 0;
  double busyNs = 0;
  double busy = 0;  ///< fraction of the makespan
  std::uint64_t bytes = 0;
  double gbpsBusy = 0;  ///< bytes / busy time
};

struct MultiGpuMetrics {
  int gpus = 0;
  bool pipeline = false;  ///< pipeline parallel (peer copies between stages), else data parallel
  std::vector<GpuFigures> perGpu;
  std::vector<LinkFigures> links;

  // Communication, summed over the GPUs.
  double commNs = 0;
  double exposedCommNs = 0;
  double overlappedCommNs = 0;
  double commOverlap = 0;            ///< overlappedCommNs / commNs: communication hidden behind kernels
  double exposedCommFraction = 0;    ///< exposed communication per GPU, as a fraction of the makespan (mean)

  // Collectives, as the communicator's lane records each call (last GPU joining to end).
  std::int64_t collectives = 0;
  std::uint64_t collectiveBytes = 0;
  double collectiveNs = 0;
  double allreduceBusGBps = 0;  ///< nccl-tests' bus bandwidth over the calls: bytes x 2(n-1)/n / time

  // Pipeline parallel.
  int microBatches = 0;
  double gpipeBubble = 0;       ///< (n-1)/(M+n-1): the idle share GPipe's fill and drain leave each stage
  double idleCompute = 0;       ///< the measured mean share of the makespan each GPU's compute engine sat idle

  // The ideal bound with every GPU's engines, the links and the collectives as resources.
  double idealBoundNs = 0;
  /// Nothing overlapped: the busiest GPU's copies, kernels and communication one after
  /// another, plus the host's work (the limits' "no overlap").
  double serialNs = 0;
  std::string critical;          ///< "GPU1's compute engine", "the GPU0→GPU1 NVLink link", "the host", ...
  std::string criticalSentence;  ///< why that resource sets the bound, with its figures
  // Scaling efficiency needs a one-GPU run of the same configuration: the analysis's
  // (analysis/ScalingEstimate.h).
};

/// GPUs the lanes name (the largest Lane::device + 1; 1 when none names one).
int gpuCountOf(const std::vector<Lane>& lanes);

struct MultiGpuInput {
  TraceView ops;
  std::vector<Lane> lanes;
  std::vector<DeviceInfo> devices;  ///< names the GPUs by ordinal; empty: GPU0, GPU1, ... by index
  /// The ranks of a merged job (Trace::ranks): each names its device's GPU, since every
  /// rank numbers its own GPU 0. Several of them: each GPU's collectives include its
  /// wait for the other ranks, so the bound takes the all-reduce's own time from the
  /// rank that waited least, and each rank's host work from its own host lanes.
  std::vector<RankInfo> ranks;
  const PipelineConfig* config = nullptr;
  std::int64_t fromNs = 0, toNs = 0;  ///< window; toNs <= fromNs: the whole trace
  double makespanNs = 0;
  std::int64_t batches = 0;     ///< batches of the whole run (every GPU)
  double hostPerBatchNs = 0;    ///< the host's work per batch (the one host thread issues every GPU's work)
  int copyEngines = 2;
};

/// Everything above but the scaling efficiency.
MultiGpuMetrics computeMultiGpuMetrics(const MultiGpuInput& in);

}  // namespace pipescope
