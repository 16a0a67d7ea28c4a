#pragma once
#include <cstdint>
#include <string>

namespace pipescope {

/// What ran the pipeline. Every trace carries one so a figure can be traced back
/// to the hardware (or model) that produced it.
struct DeviceInfo {
  std::string backend;        ///< "cuda", "simulator" or "replay"
  std::string name;           ///< "NVIDIA H200" or "Simulator: h200"
  std::string profile;        ///< simulator device profile name (empty for real GPUs)
  int computeMajor = 0;
  int computeMinor = 0;
  int copyEngines = 0;        ///< asyncEngineCount
  int pcieGeneration = 0;
  int pcieWidth = 0;
  std::uint64_t memoryBytes = 0;
  std::string driverVersion;
  std::string runtimeVersion;
  std::string timingSource;   ///< "CUPTI", "CUDA events", "simulated", "imported"
  std::string note;           ///< e.g. why CUPTI was not used, or the auto-backend fallback
  int ordinal = 0;            ///< the CUDA device ordinal (what --devices names)

  /// "NVIDIA H200 (PCIe Gen5 x16)" or "Simulator: h200".
  std::string summary() const;
  bool operator==(const DeviceInfo&) const = default;
};

}  // namespace pipescope
