#pragma once
// The simulator's host side: runs the pipeline algorithm of docs/simulator.md (the
// same one the CUDA backend runs) against a GpuModel, and records every host and
// device operation into a Trace. Deterministic: the same configuration and profile
// always give the same trace. One host thread drives every GPU of the run.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/Backend.h"
#include "sim/DeviceProfile.h"
#include "sim/GpuModel.h"
#include "sim/RingBuffer.h"
#include "sim/StageCosts.h"

namespace pipescope {

class Simulator {
 public:
  /// slowdown: wall seconds per simulated second when publishing (0 = as fast as possible).
  Simulator(const DeviceProfile& profile, Trace& trace, RunControl& control, double slowdown = 0.0);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;
  RunOutcome run(const PipelineConfig& config);

  /// Streams are numbered across GPUs in the model: GPU g's stream s is
  /// g * kStreamsPerGpu + s, and its NCCL stream is the last of its range.
  static constexpr int kStreamsPerGpu = limits::kMaxStreams + 1;
  static constexpr int kCommStream = limits::kMaxStreams;

 private:
  struct InFlightBatch {
    std::int32_t batch = 0;
    int device = 0;
    std::uint64_t lastOp = 0;  // the GPU op whose completion ends the batch (pipeline: the earliest of them)
    bool pipeline = false;     // ends when every op of pipelineWaits_ has
    std::uint64_t opsThrough = 0;  // GPU ops issued up to and including this batch's
  };
  enum class Stage : std::uint8_t { H2D, Kernels, D2H };
  /// The kernels one GPU runs for a batch (or, pipelined, for a micro-batch at one stage).
  struct KernelWork {
    std::uint64_t in = 0, out = 0;  ///< bytes read (the batch or micro-batch input) and written (its output)
    bool normalize = false;
    double customFlopsPerByte = 0;  ///< custom model: its work on this GPU, FLOP per input byte
    int customPieces = 1;           ///< ... launched as this many equal pieces
    int firstLayer = 0, endLayer = 0;  ///< GEMM presets: the layers run here
    bool head = false;                 ///< GEMM presets: the head kernel runs here
  };
  struct Planned {
    std::uint16_t name, apiName;
    double apiCost, ns;
    std::uint64_t bytes;  // what the backend records: the data the kernel works on
    bool model;           // a model kernel (what all-reduce buckets follow)
    LinkKind link = LinkKind::None;  // bound by the host link: overlaps other streams' such kernels
    std::uint64_t hostIn = 0, hostOut = 0;  // bytes it moves over the host link each way
    double tailNs = 0;  // of ns: its last wave of blocks when no other kernel fills it
  };

  static int globalStream(int device, int stream) { return device * kStreamsPerGpu + stream; }
  void setupLanes();
  void setupMultiGpu();
  void startConfig(const PipelineConfig& config);
  static std::string invalidMessage(const PipelineConfig& config);
  std::uint16_t streamLane(int globalStream);
  std::uint16_t workerLane(int worker);
  std::uint16_t linkLane(int from, int to);
  std::uint16_t engineLane(const GpuCommand& cmd);
  std::string gpuName(int device) const;

  void runBlockingBatch(std::int32_t batch, int device);
  void runDataParallelStep(std::int32_t first, int count);
  void runPipelineBatch(std::int32_t batch);
  void issueAsyncStage(Stage stage, std::int32_t batch, int device, int stream);
  void issueCopies(OpKind kind, std::int32_t batch, int device, int stream, std::uint64_t total, bool hostBlocking);
  void issueAllReduces(std::int32_t first);
  void finishIssuing(std::int32_t batch, int device, int stream);
  void makeRoom(int device);
  void retireOldest();
  void drain();

  void cpuStage(OpKind kind, std::int32_t batch, std::uint64_t bytes, double opsPerByte);
  KernelWork batchWork() const;
  KernelWork stageWork(int stage, std::uint64_t in, std::uint64_t out) const;
  void planKernels(const KernelWork& work);
  /// Issues the planned kernels on GPU `device`'s `stream`, the first after op `after`
  /// (kNoGpuOp: none); returns the last one's id. modelKernelIds_ holds the model kernels'.
  /// `hostBytes`: what the kernels read from and write to host memory with mapped
  /// memory, when not the whole batch's input and output (a pipeline stage's
  /// micro-batch: the first stage reads its input, the last writes its output).
  struct HostBytes {
    std::uint64_t in = 0, out = 0;
  };
  std::uint64_t issueKernels(std::int32_t batch, int device, int stream, std::uint64_t after,
                             const HostBytes* hostBytes = nullptr);
  /// Managed pages moving over (a fault), as the config's host slots slow them.
  double managedMoveNs(std::uint64_t bytes, ManagedTouch touch) const;
  bool isManagedMemory() const;
  struct ManagedPages;
  ManagedPages& managedPages(std::int32_t batch, int device);
  ManagedPages& pipelinePages(std::int32_t batch);
  /// A cudaMemPrefetchAsync of `bytes` on GPU `device`'s `stream`, `moving` of them
  /// not yet where it sends them (0: a no-op).
  void issuePrefetch(OpKind kind, std::int32_t batch, int device, int stream, std::uint64_t bytes,
                     std::uint64_t moving);
  /// kindKey tells calls of one kind apart for multiGpuCopySwitchNs (a copy's direction
  /// counts); 0 = the name alone.
  void apiCall(std::uint16_t name, double cost, std::uint32_t correlation, std::uint32_t kindKey = 0);
  /// More of the call just made, after something inside it (its op submitted, a wait
  /// for its DMA): the same kind, so no switch cost, and no correlation of its own.
  void continueApiCall(std::uint16_t name, double cost);
  double callSwitchNs(std::uint16_t name, std::uint32_t kindKey);
  /// The host waits for op `opId`; `sleeps`: a blocking cudaMemcpy on a host whose
  /// driver sleeps in it (DeviceProfile::memcpySyncSleeps).
  void hostWait(std::uint64_t opId, std::uint16_t name, bool sleeps = false);
  /// A D2H cudaMemcpyAsync into pageable memory: the call waits for its DMA (with the
  /// sync mode's wake-up), then copies the bytes out of the driver's staging buffer.
  void copyOutOfStaging(std::uint64_t opId, double stagingNs);
  std::uint64_t issueCopy(OpKind kind, std::int32_t batch, int device, int stream, std::uint64_t bytes,
                          bool hostBlocking);
  /// `stageOutNs`: see copyOutOfStaging. `callRestNs`: the call goes on this long after
  /// the op is submitted (a pageable H2D staging its later chunks while the first one's
  /// DMA runs).
  std::uint64_t issueGpu(const GpuCommand& cmd, std::int32_t batch, std::uint64_t bytes, std::uint16_t name,
                         std::uint8_t flags, std::uint16_t apiName, double apiCost, double stageOutNs = 0,
                         double callRestNs = 0);

  void flushDoneOps();
  void recordCollectiveCall(std::uint64_t lastMember, int members);
  void publishCompleted();
  void publishBatch();
  /// Host wake-up after a sync that waited `waitedNs` for the device.
  double wakeNs(double waitedNs) const;

  DeviceProfile profile_;
  Trace& trace_;
  RunControl& control_;
  double slowdown_;
  std::chrono::steady_clock::time_point wallStart_;

  PipelineConfig cfg_;
  int gpus_ = 1;
  std::vector<int> ordinals_;
  struct BatchBytes {
    std::uint64_t in = 0, out = 0, d2h = 0;
    bool rotatingHost = false;  ///< copies rotate over host slots (the rotating pageable curves)
    bool cpuWritesInput = false;  ///< preprocessing writes the input just before the GPU reads it
  } bytes_;  // cfg_'s sizes, computed once per configuration (outputBytes() rounds through libm)
  GpuModel gpu_;
  double hostT_ = 0;
  std::int64_t completed_ = 0;
  std::int64_t publishedCompleted_ = 0;
  RingBuffer<InFlightBatch> inFlight_;
  std::vector<int> inFlightOn_;       // per GPU: its batches in flight
  std::vector<bool> streamHasData_;   // by global stream: resident data already on the device
  // Where a host slot's managed buffers live now: the host, or the device. Touching
  // pages on the other side faults them over (docs/simulator.md).
  struct ManagedPages {
    bool inputOnDevice = false;
    std::uint64_t outputBytesOnHost = 0;
  };
  std::vector<ManagedPages> managed_;  // per GPU, per host slot
  // managedSlotsFactor() of the config's host slots: GPU side, CPU stages.
  double managedSlotsFactor_ = 1, managedSlotsCpuFactor_ = 1;
  double multiGpuOpOverheadNs_ = 0;  // the submit thread's extra time per GPU op over this run's GPUs
  std::vector<std::uint64_t> streamLastOp_;  // by global stream
  std::uint64_t lastWaited_ = ~std::uint64_t(0);
  // GPU ops issued, and how many of them belong to retired batches: the ops in
  // between are the ones the backend's bookkeeping still holds when a batch retires.
  std::uint64_t gpuOpsIssued_ = 0, gpuOpsRetired_ = 0;
  // The backend's periodic CUPTI flush (DeviceProfile::recorderFlushNsPerOp): when the
  // last one was (from the first GPU op on; < 0 before it) and the ops issued by then.
  double lastRecorderFlushT_ = -1;
  std::uint64_t opsAtRecorderFlush_ = 0;
  /// The host's bookkeeping when a batch retires: hostBatchOverheadNs plus
  /// hostPendingOpNs for each GPU op still held; the batch's ops through `opsThrough`
  /// are retired after.
  void retireBookkeeping(std::uint64_t opsThrough);
  // The extra cost the next API call pays for following a CPU stage (callAfterCpuStage),
  // and the last stage size it was looked up for (every batch's stages have the same sizes).
  double callAfterStageNs_ = 0;
  std::uint32_t lastCallKind_ = 0;  // the submit thread's last API call (multiGpuCopySwitchNs)
  struct AfterStageCost {
    std::uint64_t bytes = 0;
    double ns = 0;
  };
  AfterStageCost afterStageCache_[2];  // preprocessing, postprocessing
  // Several GPUs: each GPU's last all-reduce (the next step's kernels wait for it),
  // the ops the model kernels' buckets follow, and a pipeline step's last ops.
  std::vector<std::uint64_t> lastCollective_;
  std::vector<std::vector<std::uint64_t>> bucketAfter_;  // per GPU, per bucket
  std::vector<std::uint64_t> pipelineWaits_;
  std::vector<std::uint64_t> handoff_;  // pipeline: per micro-batch, the op the next stage waits for
  std::vector<Planned> planned_;
  std::vector<std::uint64_t> modelKernelIds_;

  // Per GPU op (by id, from flushed_ on): trace fields the model does not know.
  struct OpMeta {
    std::int32_t batch;
    std::uint64_t bytes;
    std::uint16_t name;
    std::uint8_t flags;
    std::uint8_t collectiveMembers = 0;  ///< on a collective call's last op: how many ops the call has
  };
  RingBuffer<OpMeta> meta_;

  struct CopyCost {
    std::uint64_t bytes = ~std::uint64_t(0);
    bool pageable = false;
    double soloNs = 0, gbps = 0;
    double stagingNs = 0;  ///< the host's staging memcpy inside the call (host-staged copies)
    double stagingAfterDmaStartNs = 0;  ///< H2D: what the call stages after the DMA has started
  };
  CopyCost copyCache_[2];  // H2D, D2H
  std::uint64_t flushed_ = 0;

  std::uint16_t submitLane_ = 0;
  struct GpuLanes {
    std::uint16_t h2d = 0, d2h = 0, compute = 0;
  };
  std::vector<GpuLanes> gpuLanes_;
  std::vector<std::uint16_t> linkLanes_;  // from * gpus_ + to
  std::uint16_t collectiveLane_ = kNoLane;
  std::vector<std::uint16_t> streamLanes_;  // by global stream
  std::vector<std::uint16_t> workerLanes_;

  struct Names {
    std::uint16_t normalize, model, gemm, head, gemmCall, memcpyAsync, memcpy, memcpyWait, launch, eventRecord,
        eventSync, deviceSync, prefetchCall, prefetchIn, prefetchOut;
    // Several GPUs only (a one-GPU trace's name table stays as it was).
    std::uint16_t allReduce, ncclAllReduce, streamWaitEvent, memcpyPeer, activations;
  } names_{};
};

}  // namespace pipescope
