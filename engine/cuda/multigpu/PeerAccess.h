#pragma once
// Direct access between two GPUs (NVLink or PCIe peer-to-peer). Where a pair has
// none, a copy between them goes through pinned host memory, and the run says so.
#include <string>
#include <vector>

namespace pipescope::cuda {

/// Whether `from` can access `to`'s memory directly (cudaDeviceCanAccessPeer); when
/// it can, enables that access from `from`'s context (once; enabling twice is fine).
/// Leaves `from` the current device. Throws CudaError on any other failure.
bool enablePeerAccess(int from, int to);

/// How `from` reaches `to` for a lane's name: "NVLink" (NVML says the pair is joined by
/// NVLink), "PCIe peer-to-peer" (peer access without NVLink, or NVML absent), or
/// "via host" (no peer access: copies are staged through pinned host memory).
std::string linkName(int from, int to, bool peerAccess);

/// The devices of a run checked against those present: throws std::runtime_error
/// naming how many GPUs there are and which when one is missing or listed twice.
void checkDevicesPresent(const std::vector<int>& devices);

/// "GPU 0 (NVIDIA H200)" for each CUDA device present, comma-separated.
std::string presentDevices();

}  // namespace pipescope::cuda
