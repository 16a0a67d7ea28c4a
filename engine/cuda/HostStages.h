#pragma once
// The host's part of each batch of the CUDA pipeline: preprocessing into its host
// input buffer before it is issued; after it, waiting until it is done,
// postprocessing its output and publishing its ops. CPU stages run fork-join on the
// worker pool, one op per worker.
#include <cstdint>
#include <memory>
#include <vector>

#include "cuda/OpRecorder.h"
#include "cuda/PipelineLanes.h"
#include "cuda/PipelineResources.h"
#include "cuda/WorkerPool.h"

namespace pipescope::cuda {

class HostStages {
 public:
  HostStages(Trace& trace, OpRecorder& recorder, std::int64_t t0) : trace_(trace), recorder_(recorder), t0_(t0) {}

  /// The configuration and lanes of the next batches (resizes the worker pool).
  void configure(const PipelineConfig& config, const PipelineLanes& lanes);

  /// Takes the free `slot` for `batch` on `stream` and preprocesses the batch into it.
  void begin(HostSlot& slot, int stream, std::int32_t batch);
  /// Waits until the slot's batch is done (`stream` runs it), postprocesses it,
  /// publishes its ops and frees the slot.
  void complete(HostSlot& slot, StreamSlot& stream);

  /// Batches postprocessed (or done, without postprocessing) so far.
  std::int64_t completed() const { return completed_; }

 private:
  void waitFor(HostSlot& slot, StreamSlot& stream);
  void recordCpu(OpKind kind, std::int32_t batch, const std::vector<WorkerPool::Span>& spans, std::uint64_t bytes);

  Trace& trace_;
  OpRecorder& recorder_;
  std::int64_t t0_;
  PipelineConfig config_;
  const PipelineLanes* lanes_ = nullptr;
  std::unique_ptr<WorkerPool> workers_;
  std::int64_t completed_ = 0;
  double checksum_ = 0;  // keeps postprocessing from being optimised away
};

}  // namespace pipescope::cuda
