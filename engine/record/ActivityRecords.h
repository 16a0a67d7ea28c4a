#pragma once
// What the injection library reads out of CUPTI's activity records, in plain types:
// the CUPTI side (inject/CuptiSource) fills these, ActivityTranslator turns them into
// wire messages, and tests make them by hand. Times are CLOCK_MONOTONIC nanoseconds.
#include <cstdint>
#include <string>

namespace pipescope::record {

/// A CUDA runtime or driver API call (CUPTI_ACTIVITY_KIND_RUNTIME / DRIVER).
struct ApiRecord {
  bool driver = false;
  std::string name;  ///< "cudaLaunchKernel" (the "_v7000" suffix removed)
  std::int64_t start = 0, end = 0;
  std::uint32_t threadId = 0;  ///< CUPTI's thread id
  std::uint32_t correlation = 0;
};

/// A kernel, memcpy or memset executed on a device.
struct GpuRecord {
  enum class Kind : std::uint8_t { Kernel, Copy, Memset };
  enum class Direction : std::uint8_t { HostToDevice, DeviceToHost, Other };
  enum class HostMemory : std::uint8_t { None, Pageable, Pinned, Managed };
  Kind kind = Kind::Kernel;
  std::string name;  ///< kernel name; empty for copies and memsets
  std::int64_t start = 0, end = 0;
  std::uint32_t device = 0, context = 0, stream = 0;
  std::uint32_t correlation = 0;
  std::uint64_t bytes = 0;
  Direction direction = Direction::Other;  ///< copies
  HostMemory hostMemory = HostMemory::None;
  bool async = true;        ///< copies: false for cudaMemcpy and the like (the host waited)
  std::uint32_t graph = 0;  ///< the CUDA graph it ran in (0: none)
};

/// A host synchronisation (CUPTI_ACTIVITY_KIND_SYNCHRONIZATION): what an API call waited for.
struct SyncRecord {
  enum class Type : std::uint8_t { Unknown, EventSynchronize, StreamWaitEvent, StreamSynchronize, ContextSynchronize };
  Type type = Type::Unknown;
  std::int64_t start = 0, end = 0;
  std::uint32_t correlation = 0;
  std::uint32_t context = 0, stream = 0;  ///< stream: for StreamSynchronize
};

/// An NVTX range end point or mark (CUPTI_ACTIVITY_KIND_MARKER).
struct MarkerRecord {
  enum class Point : std::uint8_t { Start, End, Instant };
  Point point = Point::Instant;
  std::uint32_t id = 0;  ///< pairs a range's start with its end
  std::int64_t time = 0;
  std::uint32_t threadId = 0;
  std::string name;  ///< on Start and Instant
};

struct DeviceRecord {
  std::uint32_t id = 0;
  std::string name;
  int computeMajor = 0, computeMinor = 0;
  std::uint64_t memoryBytes = 0;
  int multiprocessors = 0;
  int copyEngines = 0;
};

/// A host thread the injection saw issue a CUDA call: its CUPTI correlation id ties it
/// to the API record of that call, and so CUPTI's thread id to the system's.
struct ThreadSighting {
  std::uint32_t correlation = 0;
  std::int64_t tid = 0;
  std::string name;  ///< the thread's name (/proc/self/task/TID/comm)
};

}  // namespace pipescope::record
