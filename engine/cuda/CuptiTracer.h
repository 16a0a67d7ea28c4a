#pragma once
// Collects CUPTI activity records: the true engine start/end of every kernel,
// memcpy and memset, tied to pipescope's own op ids through CUPTI's external
// correlation. One tracer is active per process at a time (CUPTI is process-wide);
// it sees every GPU, on one clock.
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>

namespace pipescope::cuda {

/// GPU execution interval in CUPTI's clock (ns).
struct GpuInterval {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint32_t records = 0;  ///< how many activity records were merged (a GEMM may launch several kernels)
  std::uint32_t device = 0;   ///< the CUDA device the records ran on
};

/// Key of the interval of our op `id` on CUDA device `device`: one call can run work on
/// several GPUs (an NCCL group call launches a kernel on each), each its own interval.
constexpr std::uint64_t intervalKey(std::uint64_t id, std::uint32_t device) { return (id << 6) | (device & 63u); }

class CuptiTracer {
 public:
  CuptiTracer() = default;
  ~CuptiTracer();  ///< stops tracing if still active
  CuptiTracer(const CuptiTracer&) = delete;
  CuptiTracer& operator=(const CuptiTracer&) = delete;

  /// Enables activity collection; false with `whyNot` set when CUPTI cannot be used
  /// (e.g. another profiler owns it). Nothing stays enabled after a failure.
  /// `apiRecords` = false leaves out the runtime/driver API records that carry the
  /// external ids (diagnostics only: without them no interval can be resolved).
  bool start(std::string& whyNot, bool apiRecords = true);
  /// Delivers pending records and disables collection.
  void stop();
  bool active() const { return active_; }

  /// Marks the CUDA calls made until pop() on this thread as belonging to `id`.
  void push(std::uint64_t id);
  void pop();

  /// Asks CUPTI for finished records (forced = also those of incomplete buffers).
  void flush(bool forced);
  /// Moves every resolved interval (intervalKey(external id, device) -> the records of
  /// that id on that device, merged) into `out`, and
  /// forgets correlations of ids below `firstLiveId` (API calls that ran no GPU work).
  void collect(std::unordered_map<std::uint64_t, GpuInterval>& out, std::uint64_t firstLiveId);
  /// Kernels on `stream` (a cudaStream_t) of CUDA device `device` are kept in launch
  /// order instead of by correlation: NCCL launches its kernels from a thread of its
  /// own (non-blocking communicators), where our correlation ids do not reach, onto the
  /// streams pipescope gives it. Records delivered before this call are not counted:
  /// flush first. Returns false (with `whyNot`) when CUPTI cannot name the stream.
  bool watchStream(const void* stream, std::uint32_t device, std::string& whyNot);
  /// Appends the kernels recorded on a watched stream since the last call, in order.
  void collectStream(const void* stream, std::deque<GpuInterval>& out);

  /// Records CUPTI dropped for lack of buffer space (reported in the trace's note).
  std::uint64_t droppedRecords() const;

  /// Calls of flush() and the host time they took, process-wide (for the bench).
  static std::uint64_t flushCount();
  static std::uint64_t flushNs();

  /// CUPTI's current timestamp (ns).
  static std::uint64_t timestamp();

 private:
  bool active_ = false;
  bool apiRecords_ = true;
};

}  // namespace pipescope::cuda
