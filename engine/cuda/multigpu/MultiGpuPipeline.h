#pragma once
// The pipeline over several GPUs, driven by the engine thread alone (docs/cuda-backend.md,
// "Several GPUs"): data parallel (batches dealt across the GPUs, each running the
// one-GPU pipeline, gradients all-reduced by NCCL in buckets that follow their share of
// the kernels) or pipeline parallel (the model split into stages, stage k on GPU k,
// micro-batches handed on by peer copies).
#include "backend/Backend.h"

namespace pipescope::cuda {

/// Runs `config` on config.deviceOrdinals() (two or more GPUs); throws CudaError,
/// NcclError or std::runtime_error on failure (ops recorded so far stay in `trace`).
RunOutcome runMultiGpuPipeline(const PipelineConfig& config, Trace& trace, RunControl& control);

}  // namespace pipescope::cuda
