#include "cuda/CuptiTracer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <vector>

#include <cupti.h>

#include "cuda/CudaError.h"

namespace pipescope::cuda {

namespace {

constexpr std::size_t kBufferBytes = 4 << 20;
constexpr CUpti_ExternalCorrelationKind kOurKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;

// CUPTI calls the buffer callbacks on its own thread; everything they touch lives here.
struct Shared {
  std::mutex mutex;
  std::unordered_map<std::uint32_t, std::uint64_t> corrToExternal;  // CUPTI correlation -> our id
  std::unordered_map<std::uint32_t, GpuInterval> corrTimes;         // CUPTI correlation -> GPU interval
  // Correlations whose records arrived since the last collect(): collect() looks only
  // at these, so its cost follows what arrived, not what is still waiting (CUPTI may
  // deliver the external-correlation records of a whole run only at its end).
  std::vector<std::uint32_t> newExternal, newTimes;
  std::size_t pruneAt = 4096;  ///< corrToExternal size that triggers the next prune
  /// Watched streams: (device << 32 | CUPTI stream id) -> kernels not yet collected.
  std::unordered_map<std::uint64_t, std::vector<GpuInterval>> watched;
  std::unordered_map<const void*, std::uint64_t> watchedKey;  ///< cudaStream_t -> its key above
  std::uint64_t dropped = 0;
};
Shared& shared() {
  static Shared s;
  return s;
}

void merge(GpuInterval& into, std::uint64_t start, std::uint64_t end, std::uint32_t device) {
  if (into.records == 0 || start < into.start) into.start = start;
  if (into.records == 0 || end > into.end) into.end = end;
  into.device = device;
  ++into.records;
}

void gpuRecord(Shared& s, std::uint32_t correlation, std::uint64_t start, std::uint64_t end, std::uint32_t device) {
  merge(s.corrTimes[correlation], start, end, device);
  s.newTimes.push_back(correlation);
}

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *maxNumRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext ctx, uint32_t streamId, uint8_t* buffer, size_t /*size*/, size_t validSize) {
  Shared& s = shared();
  {
    std::lock_guard lock(s.mutex);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
      switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
          auto* r = reinterpret_cast<CUpti_ActivityExternalCorrelation*>(record);
          if (r->externalKind == kOurKind) {
            s.corrToExternal[r->correlationId] = r->externalId;
            s.newExternal.push_back(r->correlationId);
          }
          break;
        }
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
          auto* r = reinterpret_cast<CUpti_ActivityKernel10*>(record);
          if (r->start == 0 || r->end < r->start) break;
          if (!s.watched.empty()) {
            auto w = s.watched.find(std::uint64_t(r->deviceId) << 32 | r->streamId);
            if (w != s.watched.end()) {
              w->second.push_back({r->start, r->end, 1, r->deviceId});
              break;
            }
          }
          gpuRecord(s, r->correlationId, r->start, r->end, r->deviceId);
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
          auto* r = reinterpret_cast<CUpti_ActivityMemcpy6*>(record);
          if (r->start != 0 && r->end >= r->start) gpuRecord(s, r->correlationId, r->start, r->end, r->deviceId);
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY2: {  // peer-to-peer copies (cudaMemcpyPeerAsync)
          auto* r = reinterpret_cast<CUpti_ActivityMemcpyPtoP4*>(record);
          if (r->start != 0 && r->end >= r->start) gpuRecord(s, r->correlationId, r->start, r->end, r->deviceId);
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
          auto* r = reinterpret_cast<CUpti_ActivityMemset4*>(record);
          if (r->start != 0 && r->end >= r->start) gpuRecord(s, r->correlationId, r->start, r->end, r->deviceId);
          break;
        }
        default: break;  // runtime/driver API records exist only to carry the external ids
      }
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, streamId, &dropped) == CUPTI_SUCCESS) s.dropped += dropped;
  }
  std::free(buffer);
}

constexpr CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
    CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};

void CUPTIAPI noCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

std::string resultText(CUptiResult r) {
  const char* text = nullptr;
  if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || !text) return "CUPTI error " + std::to_string(int(r));
  return text;
}

}  // namespace

CuptiTracer::~CuptiTracer() {
  if (active_) {
    try {
      stop();
    } catch (...) {  // destructors never throw; the run already reported its error
    }
  }
}

bool CuptiTracer::start(std::string& whyNot, bool apiRecords) {
  apiRecords_ = apiRecords;
  Shared& s = shared();
  {
    std::lock_guard lock(s.mutex);
    s.corrToExternal.clear();
    s.corrTimes.clear();
    s.newExternal.clear();
    s.newTimes.clear();
    s.pruneAt = 4096;
    s.dropped = 0;
    s.watched.clear();
    s.watchedKey.clear();
  }
  // CUPTI has one client per process. Another tool that holds it (a program recorded by
  // `pipescope record`, Nsight Systems) keeps a subscriber: registering our buffers
  // would take its records away, so the run times its ops with CUDA events instead.
  CUpti_SubscriberHandle probe = nullptr;
  if (const CUptiResult r = cuptiSubscribe(&probe, reinterpret_cast<CUpti_CallbackFunc>(noCallback), nullptr);
      r != CUPTI_SUCCESS) {
    whyNot = r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                 ? "another profiling tool holds CUPTI in this process (pipescope record, Nsight Systems, ...)"
                 : "cuptiSubscribe failed: " + resultText(r);
    return false;
  }
  cuptiUnsubscribe(probe);
  // Registered on every start, not once: CUPTI keeps one pair of buffer callbacks per
  // process, and another client (a second copy of this tracer linked into a benchmark, a
  // profiler library) may have put its own in since our last run.
  if (const CUptiResult r = cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted); r != CUPTI_SUCCESS) {
    whyNot = "cuptiActivityRegisterCallbacks failed: " + resultText(r);
    return false;
  }
  std::size_t enabled = 0;
  for (CUpti_ActivityKind k : kKinds) {
    if (!apiRecords && (k == CUPTI_ACTIVITY_KIND_RUNTIME || k == CUPTI_ACTIVITY_KIND_DRIVER)) {
      ++enabled;
      continue;
    }
    const CUptiResult r = cuptiActivityEnable(k);
    if (r != CUPTI_SUCCESS) {
      whyNot = "cuptiActivityEnable(" + std::to_string(int(k)) + ") failed: " + resultText(r) +
               " (another profiler may be attached)";
      for (std::size_t i = 0; i < enabled; ++i) cuptiActivityDisable(kKinds[i]);
      return false;
    }
    ++enabled;
  }
  // CUPTI's own thread delivers records every few ms: flushing on the submit
  // thread mid-run costs about a millisecond per flush (measured on an H200).
  cuptiActivityFlushPeriod(5);
  active_ = true;
  return true;
}

void CuptiTracer::stop() {
  if (!active_) return;
  active_ = false;
  cuptiActivityFlushPeriod(0);
  flush(false);
  for (CUpti_ActivityKind k : kKinds) cuptiActivityDisable(k);
  flush(true);
}

void CuptiTracer::push(std::uint64_t id) {
  if (active_) PIPESCOPE_CUPTI_CHECK(cuptiActivityPushExternalCorrelationId(kOurKind, id));
}

void CuptiTracer::pop() {
  if (!active_) return;
  std::uint64_t last = 0;
  PIPESCOPE_CUPTI_CHECK(cuptiActivityPopExternalCorrelationId(kOurKind, &last));
}

std::atomic<std::uint64_t> gFlushCount{0}, gFlushNs{0};

void CuptiTracer::flush(bool forced) {
  const auto t0 = std::chrono::steady_clock::now();
  PIPESCOPE_CUPTI_CHECK(cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0));
  gFlushNs += std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  ++gFlushCount;
}
std::uint64_t CuptiTracer::flushCount() { return gFlushCount.load(); }
std::uint64_t CuptiTracer::flushNs() { return gFlushNs.load(); }

void CuptiTracer::collect(std::unordered_map<std::uint64_t, GpuInterval>& out, std::uint64_t firstLiveId) {
  Shared& s = shared();
  std::lock_guard lock(s.mutex);
  // A GPU interval moves to `out` once both its records are here; only correlations
  // that just got one of the two can have become complete.
  auto match = [&](std::uint32_t correlation) {
    auto times = s.corrTimes.find(correlation);
    if (times == s.corrTimes.end()) return;
    auto ext = s.corrToExternal.find(correlation);
    if (ext == s.corrToExternal.end()) return;
    const GpuInterval& src = times->second;
    GpuInterval& dst = out[intervalKey(ext->second, src.device)];
    if (dst.records == 0 || src.start < dst.start) dst.start = src.start;
    if (dst.records == 0 || src.end > dst.end) dst.end = src.end;
    dst.records += src.records;
    dst.device = src.device;
    s.corrTimes.erase(times);
  };
  for (std::uint32_t c : s.newTimes) match(c);
  for (std::uint32_t c : s.newExternal) match(c);
  s.newTimes.clear();
  s.newExternal.clear();
  // External ids of finished ops are kept for records that may still come; dropping
  // them only when the map has doubled keeps this linear over the run.
  if (s.corrToExternal.size() >= s.pruneAt) {
    for (auto it = s.corrToExternal.begin(); it != s.corrToExternal.end();)
      it = it->second < firstLiveId ? s.corrToExternal.erase(it) : std::next(it);
    s.pruneAt = std::max<std::size_t>(4096, 2 * s.corrToExternal.size());
  }
}

bool CuptiTracer::watchStream(const void* stream, std::uint32_t device, std::string& whyNot) {
  std::uint32_t id = 0;
  const CUptiResult r =
      cuptiGetStreamIdEx(nullptr, static_cast<CUstream>(const_cast<void*>(stream)), 0, &id);
  if (r != CUPTI_SUCCESS) {
    whyNot = "cuptiGetStreamIdEx failed: " + resultText(r);
    return false;
  }
  Shared& s = shared();
  std::lock_guard lock(s.mutex);
  const std::uint64_t key = std::uint64_t(device) << 32 | id;
  s.watchedKey[stream] = key;
  s.watched[key];
  return true;
}

void CuptiTracer::collectStream(const void* stream, std::deque<GpuInterval>& out) {
  Shared& s = shared();
  std::lock_guard lock(s.mutex);
  auto k = s.watchedKey.find(stream);
  if (k == s.watchedKey.end()) return;
  std::vector<GpuInterval>& got = s.watched[k->second];
  // One stream runs one kernel at a time: start order is launch order, whatever order
  // the buffers came in.
  std::sort(got.begin(), got.end(), [](const GpuInterval& a, const GpuInterval& b) { return a.start < b.start; });
  out.insert(out.end(), got.begin(), got.end());
  got.clear();
}

std::uint64_t CuptiTracer::droppedRecords() const {
  Shared& s = shared();
  std::lock_guard lock(s.mutex);
  return s.dropped;
}

std::uint64_t CuptiTracer::timestamp() {
  std::uint64_t t = 0;
  PIPESCOPE_CUPTI_CHECK(cuptiGetTimestamp(&t));
  return t;
}

}  // namespace pipescope::cuda
