// The light cuBLAS model on many streams (docs/fidelity.md, "structural limits"): on
// 8 streams with 32 MiB batches (--model light, the multi-stream preset's 64 x 512 KiB)
// the pipeline ran 3.6-4.6x slower than the simulator predicts on every H100 and H200
// host, built-in or freshly calibrated profile, while the heavy model on 7 streams was
// within 6 %. The simulator runs each GEMM layer for the time `calibrate` measured on
// one stream, one kernel after another, and each cublasSgemm call for the call cost
// fitted on one stream. Which of the two breaks on 8 streams?
//
// For the light shape (8 layers of 128 x rows x 128, TF32, as engine/cuda/BatchIssue.cpp
// issues them) at rows = 1024 (512 KiB batches) and 65536 (32 MiB), on S = 1, 2, 4, 8
// streams, each stream with its own cuBLAS handle and buffers as the pipeline has them
// (PipelineResources): batches go round-robin over the streams, depth-first, 8 layers
// each. Reported per S:
//   gpu us/layer  - GPU time of the whole run (events) / layers: the compute engine's
//                   throughput per layer, to set beside the one-stream figure;
//   event us/layer- each layer's own span between events on its stream (median):
//                   how long one GEMM takes while the others run beside it;
//   call us       - host time of one cublasSgemm call (median over calls);
//   copies        - the same with the batch's H2D and D2H (pinned, one per batch and
//                   stream) beside the GEMMs, as the pipeline runs them.
// And with one handle switched between streams with cublasSetStream (what a program
// with one handle does), to see whether the handle count matters.
// Build: nvcc -O2 -std=c++17 -o gemm_streams_probe gemm_streams_probe.cu -lcublas
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "probe_check.h"

#include <chrono>
#include <cstdio>
#include <vector>

namespace {

#define BLAS(x)                                                                     \
  do {                                                                              \
    cublasStatus_t s_ = (x);                                                        \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                              \
      std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, \
                   int(s_));                                                        \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

constexpr int kWidth = 128, kLayers = 8;  // config/ModelWork.h: the light preset
constexpr int kBatchesPerStream = 12;

double nowUs() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Lane {
  cudaStream_t stream;
  cublasHandle_t handle;
  float *x, *y, *hostIn, *hostOut, *devIn;
  std::vector<cudaEvent_t> marks;  // before layer 0, after each layer, per batch
};

void run(int rows, int streams, bool copies, bool oneHandle, const float* weights, cublasHandle_t shared) {
  const size_t floats = size_t(rows) * kWidth, bytes = floats * sizeof(float);
  std::vector<Lane> lanes(streams);
  for (Lane& l : lanes) {
    CHECK(cudaStreamCreateWithFlags(&l.stream, cudaStreamNonBlocking));
    if (!oneHandle) {
      BLAS(cublasCreate(&l.handle));
      BLAS(cublasSetStream(l.handle, l.stream));
      BLAS(cublasSetMathMode(l.handle, CUBLAS_TF32_TENSOR_OP_MATH));
    }
    CHECK(cudaMalloc(&l.x, bytes));
    CHECK(cudaMalloc(&l.y, bytes));
    CHECK(cudaMalloc(&l.devIn, bytes));
    CHECK(cudaMemset(l.x, 0, bytes));
    CHECK(cudaMallocHost(&l.hostIn, bytes));
    CHECK(cudaMallocHost(&l.hostOut, bytes));
    l.marks.resize(size_t(kBatchesPerStream) * (kLayers + 1));
    for (cudaEvent_t& e : l.marks) CHECK(cudaEventCreate(&e));
  }
  const float alpha = 1.0f, beta = 0.0f;
  auto batch = [&](Lane& l, int b, std::vector<double>& calls) {
    if (copies) CHECK(cudaMemcpyAsync(l.devIn, l.hostIn, bytes, cudaMemcpyHostToDevice, l.stream));
    cublasHandle_t h = oneHandle ? shared : l.handle;
    if (oneHandle) BLAS(cublasSetStream(h, l.stream));
    CHECK(cudaEventRecord(l.marks[size_t(b) * (kLayers + 1)], l.stream));
    for (int k = 0; k < kLayers; ++k) {
      float* in = k % 2 ? l.y : l.x;
      float* out = k % 2 ? l.x : l.y;
      const double t0 = nowUs();
      BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, kWidth, rows, kWidth, &alpha, weights, kWidth, in, kWidth, &beta,
                       out, kWidth));
      calls.push_back(nowUs() - t0);
      CHECK(cudaEventRecord(l.marks[size_t(b) * (kLayers + 1) + size_t(k) + 1], l.stream));
    }
    if (copies) CHECK(cudaMemcpyAsync(l.hostOut, l.x, bytes, cudaMemcpyDeviceToHost, l.stream));
  };
  // Warm-up: every handle's first call (heuristics, workspace) out of the timing.
  std::vector<double> ignored;
  for (Lane& l : lanes) batch(l, 0, ignored);
  CHECK(cudaDeviceSynchronize());
  cudaEvent_t begin, end;
  CHECK(cudaEventCreate(&begin));
  CHECK(cudaEventCreate(&end));
  std::vector<double> calls;
  CHECK(cudaEventRecord(begin, 0));
  CHECK(cudaStreamSynchronize(0));
  const double host0 = nowUs();
  for (int b = 0; b < kBatchesPerStream; ++b)
    for (Lane& l : lanes) batch(l, b, calls);
  const double hostUs = nowUs() - host0;
  for (Lane& l : lanes) CHECK(cudaStreamSynchronize(l.stream));
  CHECK(cudaEventRecord(end, 0));
  CHECK(cudaEventSynchronize(end));
  // The whole run: from the first stream's first mark to the last mark of any stream.
  float firstToLast = 0;
  std::vector<double> perLayer;
  for (Lane& l : lanes) {
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, lanes[0].marks.front(), l.marks.back()));
    firstToLast = std::max(firstToLast, ms);
    for (int b = 0; b < kBatchesPerStream; ++b)
      for (int k = 0; k < kLayers; ++k) {
        CHECK(cudaEventElapsedTime(&ms, l.marks[size_t(b) * (kLayers + 1) + size_t(k)],
                                   l.marks[size_t(b) * (kLayers + 1) + size_t(k) + 1]));
        perLayer.push_back(ms * 1e3);
      }
  }
  const double layers = double(kBatchesPerStream) * kLayers * streams;
  std::printf("rows %6d  streams %d  %-11s %-9s  gpu us/layer %8.2f  event us/layer %8.2f  call us %6.2f  host us/layer "
              "%6.2f\n",
              rows, streams, oneHandle ? "one handle" : "own handles", copies ? "+copies" : "gemm only",
              firstToLast * 1e3 / layers, median(perLayer), median(calls), hostUs / layers);
  std::fflush(stdout);
  for (Lane& l : lanes) {
    for (cudaEvent_t e : l.marks) CHECK(cudaEventDestroy(e));
    if (!oneHandle) BLAS(cublasDestroy(l.handle));
    CHECK(cudaFree(l.x));
    CHECK(cudaFree(l.y));
    CHECK(cudaFree(l.devIn));
    CHECK(cudaFreeHost(l.hostIn));
    CHECK(cudaFreeHost(l.hostOut));
    CHECK(cudaStreamDestroy(l.stream));
  }
  CHECK(cudaEventDestroy(begin));
  CHECK(cudaEventDestroy(end));
}

}  // namespace

int main() {
  CHECK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("gemm_streams_probe on %s: light layers (%d x rows x %d, TF32), %d batches per stream, %d layers each\n",
              prop.name, kWidth, kWidth, kBatchesPerStream, kLayers);
  float* weights = nullptr;
  CHECK(cudaMalloc(&weights, size_t(kWidth) * kWidth * sizeof(float)));
  CHECK(cudaMemset(weights, 0, size_t(kWidth) * kWidth * sizeof(float)));
  cublasHandle_t shared;
  BLAS(cublasCreate(&shared));
  BLAS(cublasSetMathMode(shared, CUBLAS_TF32_TENSOR_OP_MATH));
  for (int rows : {1024, 65536})
    for (bool copies : {false, true})
      for (int streams : {1, 2, 4, 8}) run(rows, streams, copies, false, weights, shared);
  for (int streams : {1, 8}) run(65536, streams, true, true, weights, shared);
  BLAS(cublasDestroy(shared));
  CHECK(cudaFree(weights));
  return 0;
}
