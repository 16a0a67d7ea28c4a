#pragma once
// The work a configuration's GPU and CPU stages do, in the units the CUDA backend
// runs them: GEMM shapes of the cuBLAS presets, FMA rounds of the custom model
// kernel, rounds of the CPU stages. The CUDA backend runs exactly this and the
// simulator predicts exactly this, so the two always count the same work.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "config/ModelKernelGrid.h"  // the custom model kernel's blocks
#include "config/PipelineConfig.h"

namespace pipescope {

/// cuBLAS presets: the batch is viewed as rows of `width` floats run through `layers`
/// square GEMMs (2·width·layers flops per element), like the convolutions of an
/// image network seen as GEMMs (im2col); then a head kernel writes the output.
/// Light ~ 512 flops/byte (a small mobile network), heavy ~ 6,656 (ResNet-50-class).
struct GemmShape {
  int width = 0;   ///< 0: not a GEMM preset
  int layers = 0;
};

inline GemmShape gemmShape(ModelPreset p) {
  switch (p) {
    case ModelPreset::Light: return {128, 8};
    case ModelPreset::Heavy: return {1024, 13};
    case ModelPreset::Custom: break;
  }
  return {};
}

/// Rows of one batch in the GEMM view (0 when the batch is smaller than one row:
/// then only the head kernel runs).
inline std::uint64_t gemmRows(const PipelineConfig& c) {
  const GemmShape g = gemmShape(c.model);
  return g.width > 0 ? c.batchBytes() / 4 / std::uint64_t(g.width) : 0;
}

/// FMAs per input float of the custom model kernel: four independent chains, so a
/// multiple of 4 (flopsPerByte x 4 bytes / 2 flops per FMA, rounded to 4).
inline std::uint32_t modelFmasPerElement(double flopsPerByte) {
  const double fmas = std::max(0.0, flopsPerByte) * 4.0 / 2.0;
  return std::uint32_t(std::llround(fmas / 4.0)) * 4u;
}

/// Rounds of the CPU stages per float (each round: four dependent multiply-adds in
/// independent chains); the stage runs whenever opsPerByte > 0, even at 0 rounds
/// (preprocessing still generates the samples, postprocessing still reads them).
inline std::uint32_t cpuRoundsPerElement(double opsPerByte) {
  return std::uint32_t(std::llround(std::max(0.0, opsPerByte)));
}

// ---------------------------------------------------------------------------------
// Several GPUs: how the work above is divided, the same for both backends.

/// Launches of the custom model kernel per batch on one GPU: with a data-parallel
/// all-reduce in K >= 1 buckets the kernel runs as K launches of 1/K its work, so each
/// bucket can follow its share (the backward layers a DDP bucket waits for).
inline int customModelPieces(const PipelineConfig& c) {
  return c.allReduces() && c.buckets >= 1 ? c.buckets : 1;
}

/// The model kernel (0-based, among the batch's `modelKernels` model launches: custom
/// pieces, or GEMM layers then the head) after which bucket `bucket` of `buckets` is
/// issued: the last bucket always follows the last one; buckets = 0 is one all-reduce
/// after every kernel.
inline int bucketAfterModelKernel(int bucket, int buckets, int modelKernels) {
  if (buckets <= 0 || modelKernels <= 0) return modelKernels - 1;
  const long long after = ((long long)(bucket + 1) * modelKernels + buckets - 1) / buckets - 1;
  return int(std::min<long long>(after, modelKernels - 1));
}

/// Pipeline parallel: the GEMM layers stage `stage` of `stages` runs, [first, end).
/// The normalize kernel runs on stage 0, the head on the last; the custom model kernel
/// runs on every stage with 1/stages of its work.
struct LayerRange {
  int first = 0, end = 0;
};
inline LayerRange stageLayers(int stage, int stages, int layers) {
  return {int((long long)stage * layers / stages), int((long long)(stage + 1) * layers / stages)};
}

/// Pipeline parallel: samples in micro-batch `m` of a batch split into microBatches
/// (equal shares, the remainder in the last).
inline int microBatchSamples(const PipelineConfig& c, int m) {
  const int per = c.batchSamples / c.microBatches;
  return m + 1 == c.microBatches ? c.batchSamples - per * (c.microBatches - 1) : per;
}

}  // namespace pipescope
