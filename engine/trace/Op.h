#pragma once
// One recorded operation. Timestamps are nanoseconds on one time base: the host's
// steady clock, zero at run start. Packed to 64 bytes so a million ops cost 64 MB.
#include <cstdint>
#include <string_view>

namespace pipescope {

enum class OpKind : std::uint8_t {
  Preprocess,   ///< CPU stage before the copy
  CopyH2D,      ///< host -> device copy (or managed prefetch)
  Kernel,       ///< GPU compute (normalize, model, imported kernels)
  CopyD2H,      ///< device -> host copy
  Postprocess,  ///< CPU stage after the copy back
  HostSync,     ///< host waiting on the device (stream/event/device synchronise)
  ApiCall,      ///< host-side cost of a CUDA API call (launch, memcpy call, ...)
  Memset,       ///< device memset (imported traces)
  Annotation,   ///< host range with no pipeline meaning (imported user annotations)
  PeerCopy,     ///< GPU -> GPU copy (lane: the stream; engine lane: the peer link it used)
  /// A collective (NCCL all-reduce, ...): as it ran on one GPU (lane: its stream, engine
  /// lane: that GPU's compute engine, since NCCL's kernels run on the SMs), or the call
  /// as a whole on a Collective lane. bytes = the buffer size.
  Collective,
};
inline constexpr int kOpKindCount = 11;

std::string_view toString(OpKind kind);
/// Kinds that execute on the GPU (and so have a meaningful ready time).
constexpr bool isGpuKind(OpKind k) {
  return k == OpKind::CopyH2D || k == OpKind::Kernel || k == OpKind::CopyD2H || k == OpKind::Memset ||
         k == OpKind::PeerCopy || k == OpKind::Collective;
}
/// Copies over the host link (PCIe); peer copies travel another link.
constexpr bool isCopyKind(OpKind k) { return k == OpKind::CopyH2D || k == OpKind::CopyD2H; }
/// Traffic between GPUs.
constexpr bool isCommunicationKind(OpKind k) { return k == OpKind::PeerCopy || k == OpKind::Collective; }

inline constexpr std::uint16_t kNoLane = 0xFFFF;
inline constexpr std::int16_t kNoStream = -1;
inline constexpr std::int32_t kNoBatch = -1;

/// Flags refine what an op was; they change how it is explained, not how it is drawn.
enum OpFlag : std::uint8_t {
  kOpPageable = 1 << 0,     ///< copy through a pageable host buffer (staged, host-blocking)
  kOpBlockingCall = 1 << 1, ///< issued by a blocking API (cudaMemcpy), host waited for it
  kOpMapped = 1 << 2,       ///< kernel read host memory directly (zero-copy)
  kOpManaged = 1 << 3,      ///< managed memory (page migration)
  kOpEventTimed = 1 << 4,   ///< start/end came from CUDA events, not CUPTI
  /// Imported host range in which the thread was working (a CPU op, a Python function, a
  /// user range): counts as host time, where no synchronisation ran inside it.
  kOpHostWork = 1 << 5,
  /// Imported user annotation (record_function, NVTX range): what iterations are found
  /// from. Host side with stream == kNoStream, GPU side with the stream it covers.
  kOpUserRange = 1 << 6,
};

struct Op {
  std::int64_t submit = 0;  ///< host issued it
  std::int64_t ready = 0;   ///< its stream reached it (earlier work in the stream done)
  std::int64_t start = 0;   ///< execution began
  std::int64_t end = 0;     ///< execution ended
  std::uint64_t bytes = 0;
  std::int32_t batch = kNoBatch;
  std::uint32_t correlation = 0;  ///< links a host API call to the GPU op it started (0 = none)
  std::uint16_t lane = kNoLane;        ///< host thread lane or stream lane
  std::uint16_t engineLane = kNoLane;  ///< hardware engine lane for GPU ops
  std::uint16_t name = 0;              ///< index into Trace::names (0 = kind's default name)
  std::int16_t stream = kNoStream;
  OpKind kind = OpKind::Kernel;
  std::uint8_t flags = 0;

  std::int64_t duration() const { return end - start; }
  /// Time behind earlier work in the stream.
  std::int64_t streamWait() const { return ready - submit; }
  /// Time behind a busy engine (or another queue) once the stream reached it.
  std::int64_t engineWait() const { return start - ready; }
  bool operator==(const Op&) const = default;
};
static_assert(sizeof(Op) <= 64, "Op must stay compact: the live window holds millions");

}  // namespace pipescope
