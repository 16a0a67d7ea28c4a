#include "inject/CuptiSource.h"

#include <cxxabi.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>

#include <cupti.h>

#include "record/ApiSelection.h"

namespace pipescope::inject {

namespace {

constexpr std::size_t kBufferBytes = 2u << 20;
/// Drained buffers kept for reuse: CUPTI asks for buffers on the program's threads, and
/// a fresh one costs them an mmap and a page fault per 4 KiB as CUPTI fills it.
constexpr std::size_t kSpareBuffers = 8;
/// Buffers waiting for the injection's thread beyond this are given up (and counted):
/// a recorder that stopped reading must not make the program's memory grow.
constexpr std::size_t kMaxQueuedBytes = 256u << 20;
constexpr std::int64_t kNamingQuietNs = 5'000'000'000;

using record::GpuRecord;
using record::MarkerRecord;
using record::SyncRecord;

std::string resultText(CUptiResult r) {
  const char* text = nullptr;
  if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || text == nullptr) return "CUPTI error " + std::to_string(int(r));
  return text;
}

std::uint64_t CUPTIAPI monotonicTimestamp() { return std::uint64_t(monotonicNowNs()); }

void CUPTIAPI onBufferRequested(std::uint8_t** buffer, std::size_t* size, std::size_t* maxNumRecords) {
  *buffer = CuptiSource::instance().takeBuffer();
  *size = *buffer ? kBufferBytes : 0;
  *maxNumRecords = 0;
}

void CUPTIAPI onBufferCompleted(CUcontext ctx, std::uint32_t streamId, std::uint8_t* buffer, std::size_t /*size*/,
                                std::size_t validSize) {
  std::size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(ctx, streamId, &dropped) != CUPTI_SUCCESS) dropped = 0;
  CuptiSource::instance().bufferCompleted(buffer, validSize, dropped);
}

void CUPTIAPI onCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) CuptiSource::instance().contextEnding();
    return;
  }
  // Runtime and driver API: only the first call of each thread matters.
  thread_local bool seen = false;
  if (seen) return;
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (cb->callbackSite != CUPTI_API_ENTER) return;
  seen = true;
  CuptiSource::instance().threadSeen(cb->correlationId);
}

const char* kindName(CUpti_ActivityKind k) {
  switch (k) {
    case CUPTI_ACTIVITY_KIND_DEVICE: return "devices";
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return "kernels";
    case CUPTI_ACTIVITY_KIND_MEMCPY: return "memory copies";
    case CUPTI_ACTIVITY_KIND_MEMSET: return "memsets";
    case CUPTI_ACTIVITY_KIND_RUNTIME: return "runtime API calls";
    case CUPTI_ACTIVITY_KIND_DRIVER: return "driver API calls";
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return "synchronisations";
    case CUPTI_ACTIVITY_KIND_MARKER: return "NVTX ranges";
    default: return "records";
  }
}

// Devices first: enabling them reports the devices already known. CONCURRENT_KERNEL,
// not KERNEL: CUPTI serialises every kernel for KERNEL records. Runtime and driver API
// records are enabled call by call (enableApiRecords).
constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_DEVICE,          CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                         CUPTI_ACTIVITY_KIND_MEMCPY,          CUPTI_ACTIVITY_KIND_MEMSET,
                                         CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_MARKER};

/// The name of system thread `tid` of this process ("" once it has ended).
std::string threadName(std::uint32_t tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

GpuRecord::HostMemory hostMemory(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return GpuRecord::HostMemory::Pageable;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return GpuRecord::HostMemory::Pinned;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return GpuRecord::HostMemory::Managed;
    default: return GpuRecord::HostMemory::None;
  }
}

}  // namespace

std::int64_t monotonicNowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

CuptiSource& CuptiSource::instance() {
  // Never destroyed: CUPTI may call back while the process's statics are torn down.
  static CuptiSource* s = new CuptiSource;
  return *s;
}

std::string CuptiSource::timing() const {
  return timestampCallback_
             ? "CUPTI stamps its records with CLOCK_MONOTONIC (timestamp callback)"
             : "CUPTI's clock tied to CLOCK_MONOTONIC by back-to-back reads, again every round (no timestamp "
               "callback in this CUPTI)";
}

bool CuptiSource::start(std::string& whyNot, std::vector<wire::Note>& notes) {
  cuptiGetVersion(&version_);
  CUpti_SubscriberHandle sub = nullptr;
  CUptiResult r = cuptiSubscribe(&sub, reinterpret_cast<CUpti_CallbackFunc>(onCallback), nullptr);
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    whyNot = "CUPTI is already in use by another profiling tool in this process (Nsight Systems, Nsight Compute, "
             "compute-sanitizer, or a profiler the program started): it runs on without being recorded";
    return false;
  }
  if (r != CUPTI_SUCCESS) {
    whyNot = "CUPTI cannot be used here (" + resultText(r) + "); the process runs on without being recorded";
    return false;
  }
  subscriber_ = sub;
  // Before any kind is enabled, so that every record is on the monotonic clock.
  timestampCallback_ = cuptiActivityRegisterTimestampCallback(monotonicTimestamp) == CUPTI_SUCCESS;
  if (!timestampCallback_) calibrate();
  // Records then carry the system's thread id, whose name the injection's own thread
  // reads from /proc: no callback on the program's calls is needed to name threads.
  systemThreadIds_ = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) == CUPTI_SUCCESS;
  r = cuptiActivityRegisterCallbacks(onBufferRequested, onBufferCompleted);
  if (r != CUPTI_SUCCESS) {
    whyNot = "cuptiActivityRegisterCallbacks failed: " + resultText(r) + "; the process runs on without being recorded";
    cuptiUnsubscribe(sub);
    subscriber_ = nullptr;
    return false;
  }
  std::size_t enabled = 0;
  for (CUpti_ActivityKind k : kKinds) {
    r = cuptiActivityEnable(k);
    if (r == CUPTI_SUCCESS) {
      ++enabled;
      continue;
    }
    if (k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || k == CUPTI_ACTIVITY_KIND_MEMCPY) {
      for (CUpti_ActivityKind done : kKinds) cuptiActivityDisable(done);
      cuptiUnsubscribe(sub);
      subscriber_ = nullptr;
      whyNot = std::string("CUPTI cannot record ") + kindName(k) + ": " + resultText(r) +
               (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
                    ? " (profiling is restricted to administrators on this machine: see NVIDIA's "
                      "ERR_NVGPUCTRPERM page)"
                    : " (another profiling tool may hold CUPTI)") +
               "; the process runs on without being recorded";
      return false;
    }
    notes.push_back({wire::Note::Warning, std::string("CUPTI cannot record ") + kindName(k) + " here (" +
                                              resultText(r) + "); the recording has no " + kindName(k)});
  }
  enableApiRecords(notes);
  // Event and stream queries that found work still running are no waits: no records.
  cuptiActivityEnableAllSyncRecords(0);
  cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  if (!systemThreadIds_) {
    // Without system thread ids, a thread is named by a callback on its first call.
    cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
    cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API);
    namingOn_ = true;
    lastNewThreadNs_ = monotonicNowNs();
  }
  // CUPTI's own thread hands buffers over at least every 100 ms.
  if (cuptiActivityFlushPeriod(100) != CUPTI_SUCCESS)
    notes.push_back({wire::Note::Info, "CUPTI has no flush period here: the injection flushes every round itself"});
  active_ = true;
  (void)enabled;
  return true;
}

void CuptiSource::enableApiRecords(std::vector<wire::Note>& notes) {
  struct Domain {
    CUpti_CallbackDomain domain;
    CUpti_CallbackId size;
    CUptiResult (*enable)(CUpti_CallbackId, std::uint8_t);
    std::vector<CUpti_CallbackId>* chosen;
  };
  const Domain domains[] = {
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, cuptiActivityEnableRuntimeApi, &runtimeCalls_},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, cuptiActivityEnableDriverApi, &driverCalls_}};
  // A call CUPTI lists but cannot trace here (graphics interop of another platform) is
  // left out; a CUPTI that can choose no call at all in a domain records them all.
  const record::ApiDomains wanted = record::apiDomainsFromSetting(std::getenv(record::kApiDomainsVariable));
  if (!wanted.error.empty()) notes.push_back({wire::Note::Warning, wanted.error});
  if (!wanted.runtime || !wanted.driver)
    notes.push_back({wire::Note::Info, std::string("API calls recorded: ") +
                                           (wanted.runtime ? "runtime only" : wanted.driver ? "driver only" : "none") +
                                           " (" + record::kApiDomainsVariable + ")"});
  CUptiResult failed = CUPTI_SUCCESS;
  for (const Domain& d : domains) {
    if (d.domain == CUPTI_CB_DOMAIN_RUNTIME_API ? !wanted.runtime : !wanted.driver) continue;
    CUptiResult lastError = CUPTI_SUCCESS;
    for (CUpti_CallbackId cbid = 1; cbid < d.size; ++cbid) {
      const char* name = nullptr;
      if (cuptiGetCallbackName(d.domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr ||
          !record::recordsApiCall(name))
        continue;
      const CUptiResult r = d.enable(cbid, 1);
      if (r == CUPTI_SUCCESS)
        d.chosen->push_back(cbid);
      else
        lastError = r;
    }
    if (d.chosen->empty() && lastError != CUPTI_SUCCESS) failed = lastError;
  }
  if (failed == CUPTI_SUCCESS) return;
  // An older CUPTI: every call, at a higher cost to the program.
  disableApiRecords();
  allApiCalls_ = true;
  for (CUpti_ActivityKind k : {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER}) {
    const CUptiResult r = cuptiActivityEnable(k);
    if (r != CUPTI_SUCCESS)
      notes.push_back({wire::Note::Warning, std::string("CUPTI cannot record ") + kindName(k) + " here (" +
                                                resultText(r) + "); the recording has no " + kindName(k)});
  }
  notes.push_back({wire::Note::Info, "this CUPTI cannot record API calls one by one (" + resultText(failed) +
                                         "): every runtime and driver call is recorded, which costs the program more"});
}

void CuptiSource::disableApiRecords() {
  for (CUpti_CallbackId cbid : runtimeCalls_) cuptiActivityEnableRuntimeApi(cbid, 0);
  for (CUpti_CallbackId cbid : driverCalls_) cuptiActivityEnableDriverApi(cbid, 0);
  runtimeCalls_.clear();
  driverCalls_.clear();
  if (allApiCalls_) {
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
  }
}

void CuptiSource::stop() {
  if (!active_.exchange(false)) return;
  if (subscriber_) {
    auto sub = static_cast<CUpti_SubscriberHandle>(subscriber_);
    if (namingOn_.exchange(false)) {
      cuptiEnableDomain(0, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
      cuptiEnableDomain(0, sub, CUPTI_CB_DOMAIN_DRIVER_API);
    }
    cuptiEnableCallback(0, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  }
  cuptiActivityFlushPeriod(0);
  for (CUpti_ActivityKind k : kKinds) cuptiActivityDisable(k);
  disableApiRecords();
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard lock(spareMutex_);
  for (std::uint8_t* b : spare_) std::free(b);
  spare_.clear();
}

void CuptiSource::flush(bool forced) {
  cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
  if (!timestampCallback_) calibrate();
}

void CuptiSource::calibrate() {
  std::int64_t best = INT64_MAX, offset = 0;
  for (int i = 0; i < 3; ++i) {
    const std::int64_t a = monotonicNowNs();
    std::uint64_t c = 0;
    cuptiGetTimestamp(&c);
    const std::int64_t b = monotonicNowNs();
    if (b - a < best) {
      best = b - a;
      offset = a + (b - a) / 2 - std::int64_t(c);
    }
  }
  offsetNs_ = offset;
}

std::int64_t CuptiSource::toMonotonic(std::uint64_t t) const {
  return timestampCallback_ ? std::int64_t(t) : std::int64_t(t) + offsetNs_.load(std::memory_order_relaxed);
}

void CuptiSource::bufferCompleted(std::uint8_t* buffer, std::size_t validSize, std::uint64_t dropped) {
  dropped_ += dropped;
  if (buffer == nullptr) return;
  if (validSize == 0 || !active_) {
    giveBack(buffer);
    return;
  }
  std::lock_guard lock(queueMutex_);
  if (queuedBytes_ + validSize > kMaxQueuedBytes) {
    CUpti_Activity* rec = nullptr;
    std::uint64_t n = 0;
    while (cuptiActivityGetNextRecord(buffer, validSize, &rec) == CUPTI_SUCCESS) ++n;
    dropped_ += n;
    giveBack(buffer);
    return;
  }
  queue_.emplace_back(buffer, validSize);
  queuedBytes_ += validSize;
}

std::uint8_t* CuptiSource::takeBuffer() {
  {
    std::lock_guard lock(spareMutex_);
    if (!spare_.empty()) {
      std::uint8_t* b = spare_.back();
      spare_.pop_back();
      return b;
    }
  }
  return static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
}

void CuptiSource::giveBack(std::uint8_t* buffer) {
  {
    std::lock_guard lock(spareMutex_);
    if (active_ && spare_.size() < kSpareBuffers) {
      spare_.push_back(buffer);
      return;
    }
  }
  std::free(buffer);
}

void CuptiSource::threadSeen(std::uint32_t correlation) {
  record::ThreadSighting s;
  s.correlation = correlation;
  s.tid = std::int64_t(::syscall(SYS_gettid));
  char name[32] = {};
  if (pthread_getname_np(pthread_self(), name, sizeof name) == 0) s.name = name;
  lastNewThreadNs_ = monotonicNowNs();
  std::lock_guard lock(queueMutex_);
  sightings_.push_back(std::move(s));
}

void CuptiSource::contextEnding() {
  // Records of a context are lost with it: hand them over first.
  if (active_) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

void CuptiSource::settleThreadNaming() {
  if (!namingOn_ || monotonicNowNs() - lastNewThreadNs_.load() < kNamingQuietNs) return;
  if (!namingOn_.exchange(false)) return;
  auto sub = static_cast<CUpti_SubscriberHandle>(subscriber_);
  cuptiEnableDomain(0, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
  cuptiEnableDomain(0, sub, CUPTI_CB_DOMAIN_DRIVER_API);
}

const std::string& CuptiSource::kernelName(const char* mangled) {
  // CUPTI shares one name string among a kernel's records: demangle it once.
  auto it = kernelNames_.find(mangled);
  if (it != kernelNames_.end()) return it->second;
  std::string name = mangled ? mangled : "kernel";
  if (mangled && mangled[0] == '_' && mangled[1] == 'Z') {
    int status = 0;
    char* plain = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
    if (status == 0 && plain) name = plain;
    std::free(plain);
  }
  return kernelNames_.emplace(mangled, std::move(name)).first->second;
}

const std::string& CuptiSource::apiName(bool driver, std::uint32_t cbid) {
  const std::uint64_t key = (std::uint64_t(driver) << 32) | cbid;
  auto it = apiNames_.find(key);
  if (it != apiNames_.end()) return it->second;
  const char* name = nullptr;
  std::string text;
  if (cuptiGetCallbackName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name) ==
          CUPTI_SUCCESS &&
      name != nullptr)
    text = record::apiDisplayName(name);
  else
    text = std::string(driver ? "driver call " : "runtime call ") + std::to_string(cbid);
  return apiNames_.emplace(key, std::move(text)).first->second;
}

void CuptiSource::drainInto(record::ActivityTranslator& t) {
  std::vector<std::pair<std::uint8_t*, std::size_t>> buffers;
  std::vector<record::ThreadSighting> sightings;
  {
    std::lock_guard lock(queueMutex_);
    buffers.swap(queue_);
    sightings.swap(sightings_);
    queuedBytes_ = 0;
  }
  // Sightings first: they name the threads the records of these buffers came from.
  for (const auto& s : sightings) t.threadSighting(s);
  for (auto& [buffer, size] : buffers) {
    convert(buffer, size, t);
    giveBack(buffer);
  }
}

void CuptiSource::nameThread(std::uint32_t threadId, record::ActivityTranslator& t) {
  if (!systemThreadIds_ || !namedThreads_.insert(threadId).second) return;
  t.threadNamed(threadId, std::int64_t(threadId), threadName(threadId));
}

void CuptiSource::convert(const std::uint8_t* buffer, std::size_t validSize, record::ActivityTranslator& t) {
  CUpti_Activity* record = nullptr;
  auto* buf = const_cast<std::uint8_t*>(buffer);
  while (cuptiActivityGetNextRecord(buf, validSize, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* r = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        if (r->start == 0 || r->end < r->start) break;
        GpuRecord g;
        g.kind = GpuRecord::Kind::Kernel;
        g.name = kernelName(r->name);
        g.start = toMonotonic(r->start);
        g.end = toMonotonic(r->end);
        g.device = r->deviceId;
        g.context = r->contextId;
        g.stream = r->streamId;
        g.correlation = r->correlationId;
        g.graph = r->graphId;
        t.gpu(g);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* r = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        if (r->start == 0 || r->end < r->start) break;
        GpuRecord g;
        g.kind = GpuRecord::Kind::Copy;
        g.start = toMonotonic(r->start);
        g.end = toMonotonic(r->end);
        g.device = r->deviceId;
        g.context = r->contextId;
        g.stream = r->streamId;
        g.correlation = r->correlationId;
        g.bytes = r->bytes;
        g.graph = r->graphId;
        g.async = (r->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0;
        switch (r->copyKind) {
          case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
          case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
            g.direction = GpuRecord::Direction::HostToDevice;
            g.hostMemory = hostMemory(r->srcKind);
            break;
          case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
          case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
            g.direction = GpuRecord::Direction::DeviceToHost;
            g.hostMemory = hostMemory(r->dstKind);
            break;
          default: g.direction = GpuRecord::Direction::Other; break;
        }
        t.gpu(g);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* r = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        if (r->start == 0 || r->end < r->start) break;
        GpuRecord g;
        g.kind = GpuRecord::Kind::Memset;
        g.start = toMonotonic(r->start);
        g.end = toMonotonic(r->end);
        g.device = r->deviceId;
        g.context = r->contextId;
        g.stream = r->streamId;
        g.correlation = r->correlationId;
        g.bytes = r->bytes;
        g.graph = r->graphId;
        t.gpu(g);
        break;
      }
      case CUPTI_ACTIVITY_KIND_RUNTIME:
      case CUPTI_ACTIVITY_KIND_DRIVER: {
        const auto* r = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        const bool driver = record->kind == CUPTI_ACTIVITY_KIND_DRIVER;
        record::ApiRecord a;
        a.driver = driver;
        a.name = apiName(driver, r->cbid);
        a.start = toMonotonic(r->start);
        a.end = toMonotonic(r->end);
        a.threadId = r->threadId;
        a.correlation = r->correlationId;
        nameThread(r->threadId, t);
        t.api(a);
        break;
      }
      case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const auto* r = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
        SyncRecord s;
        switch (r->type) {
          case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: s.type = SyncRecord::Type::EventSynchronize; break;
          case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: s.type = SyncRecord::Type::StreamWaitEvent; break;
          case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: s.type = SyncRecord::Type::StreamSynchronize; break;
          case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
            s.type = SyncRecord::Type::ContextSynchronize;
            break;
          default: s.type = SyncRecord::Type::Unknown; break;
        }
        s.start = toMonotonic(r->start);
        s.end = toMonotonic(r->end);
        s.correlation = r->correlationId;
        s.context = r->contextId;
        s.stream = r->streamId;
        t.sync(s);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MARKER: {
        const auto* r = reinterpret_cast<const CUpti_ActivityMarker2*>(record);
        MarkerRecord m;
        if (r->flags & CUPTI_ACTIVITY_FLAG_MARKER_START)
          m.point = MarkerRecord::Point::Start;
        else if (r->flags & CUPTI_ACTIVITY_FLAG_MARKER_END)
          m.point = MarkerRecord::Point::End;
        else
          m.point = MarkerRecord::Point::Instant;
        m.id = r->id;
        m.time = toMonotonic(r->timestamp);
        m.threadId = r->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? r->objectId.pt.threadId : 0;
        if (r->name) m.name = r->name;
        if (m.threadId != 0) nameThread(m.threadId, t);
        t.marker(m);
        break;
      }
      case CUPTI_ACTIVITY_KIND_DEVICE: {
        const auto* r = reinterpret_cast<const CUpti_ActivityDevice5*>(record);
        record::DeviceRecord d;
        d.id = r->id;
        d.name = r->name ? r->name : "CUDA device " + std::to_string(r->id);
        d.computeMajor = int(r->computeCapabilityMajor);
        d.computeMinor = int(r->computeCapabilityMinor);
        d.memoryBytes = r->globalMemorySize;
        d.multiprocessors = int(r->numMultiprocessors);
        d.copyEngines = int(r->numMemcpyEngines);
        t.device(d);
        break;
      }
      default: break;
    }
  }
}

}  // namespace pipescope::inject
