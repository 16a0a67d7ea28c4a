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
};
std::string_view toString(LaneKind kind);
constexpr bool isEngineLane(LaneKind k) {
  return k == LaneKind::CopyEngineH2D || k == LaneKind::CopyEngineD2H || k == LaneKind::CopyEngine ||
         k == LaneKind::ComputeEngine;
}
constexpr bool isHostLane(LaneKind k) {
  return k == LaneKind::HostSubmit || k == LaneKind::HostWorker || k == LaneKind::HostOther;
}

/// One row of the timeline.
struct Lane {
  std::uint16_t id = 0;  ///< index in Trace lanes
  LaneKind kind = LaneKind::HostSubmit;
  std::string name;      ///< "submit thread", "stream 2", "H2D copy engine"
  int index = 0;         ///< stream number, worker number or engine number
  bool operator==(const Lane&) const = default;
};

}  // namespace pipescope
