#include "analysis/WaitCause.h"

namespace pipescope {

std::string_view toString(WaitCause cause) {
  switch (cause) {
    case WaitCause::StreamOrder: return "stream order";
    case WaitCause::EngineBusy: return "engine busy";
    case WaitCause::DeviceLatency: return "device latency";
    case WaitCause::HostSubmit: return "host submit";
    case WaitCause::HostCpuWork: return "host CPU work";
    case WaitCause::PageableStaging: return "pageable staging";
    case WaitCause::HostSync: return "host sync";
    case WaitCause::PeerActivation: return "peer's activation";
    case WaitCause::CollectiveWait: return "the collective";
  }
  return "?";
}

std::string_view keyOf(WaitCause cause) {
  switch (cause) {
    case WaitCause::StreamOrder: return "stream_order";
    case WaitCause::EngineBusy: return "engine_busy";
    case WaitCause::DeviceLatency: return "device_latency";
    case WaitCause::HostSubmit: return "host_submit";
    case WaitCause::HostCpuWork: return "host_cpu_work";
    case WaitCause::PageableStaging: return "pageable_staging";
    case WaitCause::HostSync: return "host_sync";
    case WaitCause::PeerActivation: return "peer_activation";
    case WaitCause::CollectiveWait: return "collective";
  }
  return "?";
}

}  // namespace pipescope
