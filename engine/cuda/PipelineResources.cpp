#include "cuda/PipelineResources.h"

#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cuda/CudaError.h"

namespace pipescope::cuda {

namespace {

// cuBLAS keeps a workspace per handle (32 MiB on Hopper); counted in the memory check.
constexpr std::uint64_t kCublasWorkspaceBytes = 40ull << 20;

std::uint64_t physicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

}  // namespace

// Light ~ 512 flops/byte (a small mobile network), heavy ~ 6,656 flops/byte (a
// ResNet-50-class network): 2·width·layers flops per element, like the convolutions
// of an image network seen as GEMMs (im2col).
bool isManaged(HostMemory m) { return m == HostMemory::Managed || m == HostMemory::ManagedPrefetch; }

int streamCount(const PipelineConfig& c) { return c.isAsync() ? c.streams : 1; }
int hostSlotCount(const PipelineConfig& c) { return c.hostSlots(); }

BufferCache::~BufferCache() {
  if (!streams.empty() || !hosts.empty() || weights.get()) cudaDeviceSynchronize();
}

void BufferCache::clear() {
  // The device must be idle before its buffers are freed.
  cudaDeviceSynchronize();
  streams.clear();
  hosts.clear();
  weights = DeviceBuffer();
  valid = false;
}

PipelineResources::AllocKey PipelineResources::allocKey(const PipelineConfig& c) {
  return {c.memory, c.isAsync(), streamCount(c), c.batchBytes(), c.outputBytes(), c.model};
}

void PipelineResources::prepare(const PipelineConfig& c) {
  const AllocKey key = allocKey(c);
  if (!allocated_ || !(key == allocatedKey_)) {
    streams_.clear();
    hosts_.clear();
    weights_ = DeviceBuffer();
    checkMemory(c);
    allocate(c);
    allocatedKey_ = key;
    allocated_ = true;
  }
  warmUpGemms(c);
  for (StreamSlot& s : streams_) s.residentLoaded = s.residentLoaded && c.residency == DataResidency::KeepResident;
}

void PipelineResources::checkMemory(const PipelineConfig& c) const {
  const std::uint64_t streams = std::uint64_t(streamCount(c));
  const std::uint64_t hostSlots = std::uint64_t(this->hostSlots(c));
  const GemmShape g = gemmShape(c.model);
  const bool copies = c.usesCopies() && !isManaged(c.memory);
  std::uint64_t device = streams * c.batchBytes();  // devIn
  if (copies) device += streams * c.outputBytes();  // devOut
  if (g.width > 0) device += streams * (c.batchBytes() + kCublasWorkspaceBytes) + std::uint64_t(g.width) * g.width * 4;
  const std::uint64_t hostSide = hostSlots * (c.batchBytes() + c.outputBytes());
  const std::uint64_t managed = isManaged(c.memory) ? hostSide : 0;
  std::size_t freeBytes = 0, totalBytes = 0;
  PIPESCOPE_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
  // Leave room for the context, CUPTI's buffers and fragmentation.
  const std::uint64_t usable = std::uint64_t(double(freeBytes) * 0.92);
  if (device + managed > usable) {
    throw std::runtime_error(
        "configuration needs " + formatBytes(device + managed) + " of GPU memory (" + std::to_string(streams) +
        " streams x " + formatBytes(c.batchBytes()) + " batches" + (managed ? ", managed buffers included" : "") +
        ") but only " + formatBytes(freeBytes) + " of " + formatBytes(totalBytes) + " is free on " + info_.name +
        ": use fewer streams, smaller batches (batch samples x sample bytes) or a smaller output ratio");
  }
  const std::uint64_t physical = physicalMemoryBytes();
  if (!isManaged(c.memory) && physical > 0 && hostSide > physical / 10 * 8) {
    throw std::runtime_error("configuration needs " + formatBytes(hostSide) + " of " +
                             std::string(toString(c.memory)) + " host memory (" + std::to_string(hostSlots) +
                             " batches in flight, input and output) but this machine has " + formatBytes(physical) +
                             ": use fewer streams or smaller batches");
  }
}

void PipelineResources::allocate(const PipelineConfig& c) {
  streams_.resize(std::size_t(streamCount(c)));
  for (StreamSlot& s : streams_) allocateStream(s, c);
  hosts_.resize(std::size_t(hostSlots(c)));
  for (HostSlot& h : hosts_) allocateHost(h, c);
  allocateWeights(c);
  PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
}

void PipelineResources::allocateStream(StreamSlot& s, const PipelineConfig& c) {
  const GemmShape g = gemmShape(c.model);
  const bool copies = c.usesCopies() && !isManaged(c.memory);
  if (c.isAsync()) s.stream = Stream::create();
  s.devIn = DeviceBuffer(c.batchBytes(), "device input buffer");
  if (copies) s.devOut = DeviceBuffer(c.outputBytes(), "device output buffer");
  if (g.width > 0) {
    s.devScratch = DeviceBuffer(c.batchBytes(), "GEMM activation buffer");
    s.blas = CublasHandle::create();
    PIPESCOPE_CUBLAS_CHECK(cublasSetStream(s.blas.get(), s.handle()));
    PIPESCOPE_CUBLAS_CHECK(cublasSetMathMode(s.blas.get(), CUBLAS_TF32_TENSOR_OP_MATH));
  }
}

void PipelineResources::allocateHost(HostSlot& h, const PipelineConfig& c) {
  h.in = HostBuffer(c.memory, c.batchBytes(), "host input buffer");
  h.out = HostBuffer(c.memory, c.outputBytes(), "host output buffer");
  // Only says when the batch is done: no timing, so recording it costs next to nothing.
  if (c.isAsync() && !h.done.get()) h.done = Event::create(false);
}

void PipelineResources::allocateWeights(const PipelineConfig& c) {
  const GemmShape g = gemmShape(c.model);
  if (g.width <= 0) return;
  const std::size_t n = std::size_t(g.width) * std::size_t(g.width);
  std::vector<float> w(n);
  for (std::size_t i = 0; i < n; ++i) w[i] = (float((i * 7919) % 101) / 101.0f - 0.5f) / float(g.width);
  weights_ = DeviceBuffer(n * sizeof(float), "GEMM weights");
  PIPESCOPE_CUDA_CHECK(cudaMemcpy(weights_.get(), w.data(), n * sizeof(float), cudaMemcpyHostToDevice));
}

/// The first cublasSgemm in a process costs 50-110 ms on an H100/H200 (cuBLAS loads its
/// kernels and heuristics; CUPTI showed one such call per run, on whichever stream came
/// first), which a run of a few hundred batches would count in its makespan: one call of
/// the run's shape per handle, outside the timeline (no op carries it), makes the run
/// the steady state a real program reaches after its first step.
void PipelineResources::warmUpGemms(const PipelineConfig& c) {
  const GemmShape g = gemmShape(c.model);
  if (g.width <= 0 || !weights_.get()) return;
  const int rows = int(c.batchBytes() / sizeof(float) / std::size_t(g.width));
  if (rows <= 0) return;
  const float alpha = 1.0f, beta = 0.0f;
  bool issued = false;
  for (StreamSlot& s : streams_) {
    if (s.gemmWarm || !s.blas.get() || !s.devScratch.get()) continue;
    PIPESCOPE_CUBLAS_CHECK(cublasSgemm(s.blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, g.width, rows, g.width, &alpha,
                                       static_cast<const float*>(weights_.get()), g.width,
                                       static_cast<const float*>(s.devIn.get()), g.width, &beta,
                                       static_cast<float*>(s.devScratch.get()), g.width));
    s.gemmWarm = issued = true;
  }
  if (issued) PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
}

void PipelineResources::warmUpCopies(const PipelineConfig& c, const HostSlot& host) {
  if (!c.usesCopies() || c.memory == HostMemory::Mapped || isManaged(c.memory)) return;
  bool issued = false;
  for (StreamSlot& s : streams_) {
    if (s.copiesWarm) continue;
    const std::size_t in = std::min<std::size_t>({std::size_t(4096), host.in.bytes(), s.devIn.bytes()});
    if (in > 0)
      PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(s.devIn.get(), host.in.host(), in, cudaMemcpyHostToDevice, s.handle()));
    const std::size_t out = std::min<std::size_t>({std::size_t(4096), host.out.bytes(), s.devOut.bytes()});
    if (out > 0)
      PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(host.out.host(), s.devOut.get(), out, cudaMemcpyDeviceToHost, s.handle()));
    s.copiesWarm = issued = true;
  }
  if (issued) PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
}

/// Whether a cached stream slot can serve `c`: every buffer it needs exists and is
/// large enough (copies use the configuration's sizes, never the buffer's).
bool PipelineResources::streamSlotFits(const StreamSlot& s, const PipelineConfig& c) {
  const bool copies = c.usesCopies() && !isManaged(c.memory);
  const bool gemm = gemmShape(c.model).width > 0;
  return s.devIn.bytes() >= c.batchBytes() && (!copies || s.devOut.bytes() >= c.outputBytes()) &&
         (!gemm || (s.devScratch.bytes() >= c.batchBytes() && s.blas.get() != nullptr)) &&
         (c.isAsync() == (s.stream.get() != nullptr));
}

bool PipelineResources::hostSlotFits(const HostSlot& s, const PipelineConfig& c) {
  return s.in.bytes() >= c.batchBytes() && s.out.bytes() >= c.outputBytes() && (!c.isAsync() || s.done.get());
}

/// Takes the cached slots when they were made for the same host memory, mode and
/// model and are large enough; missing slots (more streams) are allocated, extra
/// ones stay in the cache. Anything else empties the cache first, so old and new
/// buffers are never held at once. Managed memory is never reused: where its pages
/// live depends on the previous run.
void PipelineResources::adoptCached(const PipelineConfig& c) {
  if (!cache_ || !cache_->valid) return;
  const std::size_t streams = std::size_t(streamCount(c)), hosts = std::size_t(hostSlots(c));
  const std::size_t takeStreams = std::min(streams, cache_->streams.size());
  const std::size_t takeHosts = std::min(hosts, cache_->hosts.size());
  bool fits = cache_->memory == c.memory && !isManaged(c.memory) && cache_->async == c.isAsync() &&
              cache_->model == c.model && takeStreams > 0 && takeHosts > 0;
  for (std::size_t i = 0; fits && i < takeStreams; ++i) fits = streamSlotFits(cache_->streams[i], c);
  for (std::size_t i = 0; fits && i < takeHosts; ++i) fits = hostSlotFits(cache_->hosts[i], c);
  if (!fits) {
    cache_->clear();
    return;
  }
  streams_.clear();
  hosts_.clear();
  for (std::size_t i = 0; i < takeStreams; ++i) streams_.push_back(std::move(cache_->streams[i]));
  for (std::size_t i = 0; i < takeHosts; ++i) hosts_.push_back(std::move(cache_->hosts[i]));
  cache_->streams.erase(cache_->streams.begin(), cache_->streams.begin() + std::ptrdiff_t(takeStreams));
  cache_->hosts.erase(cache_->hosts.begin(), cache_->hosts.begin() + std::ptrdiff_t(takeHosts));
  for (StreamSlot& s : streams_) s.residentLoaded = false;  // each run loads its resident data itself
  for (HostSlot& h : hosts_) {
    h.batch = kNoBatch;
    h.complete = false;
    h.range = 0;
  }
  if (takeStreams < streams || takeHosts < hosts) {
    checkMemory(c);  // conservative: counts the adopted slots again
    streams_.resize(streams);
    for (std::size_t i = takeStreams; i < streams; ++i) allocateStream(streams_[i], c);
    hosts_.resize(hosts);
    for (std::size_t i = takeHosts; i < hosts; ++i) allocateHost(hosts_[i], c);
  }
  weights_ = std::move(cache_->weights);
  if (gemmShape(c.model).width > 0 && !weights_.get()) allocateWeights(c);
  PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  allocatedKey_ = allocKey(c);
  allocated_ = true;
}

void PipelineResources::returnToCache(const PipelineConfig& c) {
  if (!cache_ || isManaged(c.memory)) return;
  const bool same = cache_->valid && cache_->memory == c.memory && cache_->async == c.isAsync() &&
                    cache_->model == c.model;
  std::vector<StreamSlot> streams = std::move(streams_);
  std::vector<HostSlot> hosts = std::move(hosts_);
  streams_.clear();
  hosts_.clear();
  if (same) {
    for (StreamSlot& s : cache_->streams) streams.push_back(std::move(s));
    for (HostSlot& h : cache_->hosts) hosts.push_back(std::move(h));
  }
  if (!same) cache_->clear();
  cache_->streams = std::move(streams);
  cache_->hosts = std::move(hosts);
  if (weights_.get()) cache_->weights = std::move(weights_);
  cache_->memory = c.memory;
  cache_->async = c.isAsync();
  cache_->model = c.model;
  cache_->valid = true;
  allocated_ = false;
}

}  // namespace pipescope::cuda
