#pragma once
// The simulator's host side: runs the pipeline algorithm of docs/simulator.md (the
// same one the CUDA backend runs) against a GpuModel, and records every host and
// device operation into a Trace. Deterministic: the same configuration and profile
// always give the same trace.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/Backend.h"
#include "sim/DeviceProfile.h"
#include "sim/GpuModel.h"
#include "sim/RingBuffer.h"

namespace pipescope {

class Simulator {
 public:
  /// slowdown: wall seconds per simulated second when publishing (0 = as fast as possible).
  Simulator(const DeviceProfile& profile, Trace& trace, RunControl& control, double slowdown = 0.0);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;
  RunOutcome run(const PipelineConfig& config);

 private:
  struct InFlightBatch {
    std::int32_t batch = 0;
    int stream = 0;
    std::uint64_t lastOp = 0;  // the GPU op whose completion ends the batch
  };
  enum class Stage : std::uint8_t { H2D, Kernels, D2H };

  void setupLanes();
  void startConfig(const PipelineConfig& config);
  static std::string invalidMessage(const PipelineConfig& config);
  std::uint16_t streamLane(int stream);
  std::uint16_t workerLane(int worker);

  void runBlockingBatch(std::int32_t batch);
  void issueAsyncStage(Stage stage, std::int32_t batch, int stream);
  void finishIssuing(std::int32_t batch, int stream);
  void retireOldest();
  void drain();

  void cpuStage(OpKind kind, std::int32_t batch, std::uint64_t bytes, double opsPerByte);
  void issueKernels(std::int32_t batch, int stream);
  bool isManagedMemory() const;
  struct ManagedPages;
  ManagedPages& managedPages(std::int32_t batch);
  void apiCall(std::uint16_t name, double cost, std::uint32_t correlation);
  void hostWait(std::uint64_t opId, std::uint16_t name);
  std::uint64_t issueCopy(OpKind kind, std::int32_t batch, int stream, std::uint64_t bytes, bool hostBlocking);
  std::uint64_t issueGpu(const GpuCommand& cmd, std::int32_t batch, std::uint64_t bytes, std::uint16_t name,
                         std::uint8_t flags, std::uint16_t apiName, double apiCost);

  void flushDoneOps();
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
  std::vector<bool> streamHasData_;   // resident data already on the device
  // Where a host slot's managed buffers live now: the host, or the device. Touching
  // pages on the other side faults them over (docs/simulator.md).
  struct ManagedPages {
    bool inputOnDevice = false;
    std::uint64_t outputBytesOnHost = 0;
  };
  std::vector<ManagedPages> managed_;
  std::vector<std::uint64_t> streamLastOp_;
  std::uint64_t lastWaited_ = ~std::uint64_t(0);

  // Per GPU op (by id, from flushed_ on): trace fields the model does not know.
  struct OpMeta {
    std::int32_t batch;
    std::uint64_t bytes;
    std::uint16_t name;
    std::uint8_t flags;
  };
  RingBuffer<OpMeta> meta_;

  struct CopyCost {
    std::uint64_t bytes = ~std::uint64_t(0);
    bool pageable = false;
    double soloNs = 0, gbps = 0;
  };
  CopyCost copyCache_[2];  // H2D, D2H
  std::uint64_t flushed_ = 0;

  std::uint16_t submitLane_ = 0;
  std::uint16_t engineLanes_[GpuModel::kSlots] = {0, 0, 0, 0};  // link kernels: the compute engine's lane
  std::vector<std::uint16_t> streamLanes_;
  std::vector<std::uint16_t> workerLanes_;

  struct Names {
    std::uint16_t normalize, model, gemm, head, gemmCall, memcpyAsync, memcpy, memcpyWait, launch, eventRecord, eventSync,
        deviceSync, prefetchCall, prefetchIn, prefetchOut;
  } names_{};
};

}  // namespace pipescope
