#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace pipescope {

enum class LaneKind : std::uint8_t {
  HostSubmit,     ///< the thread issuing CUDA calls
  HostWorker,     ///< a CPU worker thread (pre/postprocessing)
  Stream,         ///< a CUDA stream
  CopyEngineH2D,  ///< hardware copy engine, host -> device
  CopyEngineD2H,  ///< hardware copy engine, device -> host
  CopyEngine,     ///< the single copy engine of a one-engine device (both directions)
  ComputeEngine,  ///< the SMs
  HostOther,      ///< any other host thread (imported traces)
  PeerLink,       ///< a link from one GPU to another ("GPU0→GPU1 NVLink", "GPU0→GPU1 via host")
  Collective,     ///< a communicator: each collective call as a whole, across its GPUs
};
inline constexpr LaneKind kLastLaneKind = LaneKind::Collective;
std::string_view toString(LaneKind kind);
constexpr bool isEngineLane(LaneKind k) {
  return k == LaneKind::CopyEngineH2D || k == LaneKind::CopyEngineD2H || k == LaneKind::CopyEngine ||
         k == LaneKind::ComputeEngine;
}
constexpr bool isHostLane(LaneKind k) {
  return k == LaneKind::HostSubmit || k == LaneKind::HostWorker || k == LaneKind::HostOther;
}
/// Lanes that carry traffic between GPUs rather than one GPU's own work.
constexpr bool isCommunicationLane(LaneKind k) { return k == LaneKind::PeerLink || k == LaneKind::Collective; }

/// Lane::device for a lane that belongs to no single GPU.
inline constexpr int kSharedLane = -1;
/// The device a lane of this kind has when nothing says otherwise: host threads and
/// communicators are shared by all GPUs; streams, engines and links belong to GPU 0
/// (a one-GPU trace, or a file written before traces had several devices).
constexpr int defaultLaneDevice(LaneKind k) {
  return isHostLane(k) || k == LaneKind::Collective ? kSharedLane : 0;
}

/// One row of the timeline.
struct Lane {
  std::uint16_t id = 0;  ///< index in Trace lanes
  LaneKind kind = LaneKind::HostSubmit;
  std::string name;      ///< "submit thread", "stream 2", "H2D copy engine"
  /// Stream number, worker number or engine number; for a PeerLink, the device the link
  /// goes to (its `device` is the one it leaves); for a Collective, the communicator.
  int index = 0;
  /// Index into Trace::devices() of the GPU the lane belongs to (a peer link: the GPU
  /// it leaves); kSharedLane (-1) for host lanes and communicators, shared by all GPUs.
  int device = kSharedLane;
  bool operator==(const Lane&) const = default;
};

}  // namespace pipescope
