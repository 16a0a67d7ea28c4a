#pragma once
// Why a GPU op did not start earlier. The window an op waits in runs from when its
// stream fell idle before it (the end of the previous op of the stream, or the op's
// own submit when the stream was still busy) to its start; every nanosecond of that
// window gets exactly one cause (docs/analysis.md, "Wait causes").
#include <cstdint>
#include <string_view>

namespace pipescope {

enum class WaitCause : std::uint8_t {
  StreamOrder,      ///< submitted, but behind earlier work in its own stream (submit..ready)
  EngineBusy,       ///< its stream reached it, but its engine was running another op
  DeviceLatency,    ///< reached and the engine free, not yet started: launch/DMA latency or a blocked hardware queue
  HostSubmit,       ///< stream idle, the host had not submitted it yet: API calls and host overhead
  HostCpuWork,      ///< stream idle while the host ran CPU pre/postprocessing
  PageableStaging,  ///< stream idle while the host was held by a pageable (staged) copy
  HostSync,         ///< stream idle while the host waited in a synchronisation
  /// Stream idle, the op waiting for another GPU's activations: the peer copy that
  /// brings them in (its stream waits on an event after it).
  PeerActivation,
  /// Stream idle, the op waiting for a collective on its GPU to finish (a data-parallel
  /// step's kernels wait for the previous step's all-reduce).
  CollectiveWait,
};
inline constexpr int kWaitCauseCount = 9;

/// Short name: "stream order", "engine busy", "device latency", "host submit",
/// "host CPU work", "pageable staging", "host sync", "peer's activation", "the collective".
std::string_view toString(WaitCause cause);
/// Key for JSON and scripts: "stream_order", "engine_busy", ...
std::string_view keyOf(WaitCause cause);
/// True for the causes that sit before the op's submit (the host was late).
constexpr bool isHostSide(WaitCause c) {
  return c == WaitCause::HostSubmit || c == WaitCause::HostCpuWork || c == WaitCause::PageableStaging ||
         c == WaitCause::HostSync;
}

}  // namespace pipescope
