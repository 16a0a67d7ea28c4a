#pragma once
// The CUDA backend as the rest of pipescope sees it. The backend itself (engine/cuda)
// is a shared module, libpipescope-cuda.so, loaded with dlopen the first time a CUDA
// backend is asked for: cuBLAS, cuBLASLt, CUPTI and every other library engine/cuda
// links are the module's dependencies, not the programs', so `--version`, the
// simulator and the desktop app before a CUDA run never load them
// (docs/cuda-backend.md, "Loading"). No CUDA type appears here.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/Backend.h"
#include "sim/DeviceProfile.h"

namespace pipescope {

struct CudaProbe {
  enum class Status { Available, NoDevice, Error };
  Status status = Status::NoDevice;
  int deviceCount = 0;
  std::string message;  ///< why there is no device, or the error
  /// Each device's name (from its properties: no context is created, so the device's
  /// flags can still be set before its first use).
  std::vector<std::string> names;
};

/// The calibration: measures, on a real GPU, every parameter of the simulator's
/// DeviceProfile with the same kernels, copies, API calls and CPU functions the CUDA
/// backend runs (docs/fidelity.md).
struct CalibrationOptions {
  int device = 0;
  std::string profileName;  ///< empty: derived from the device name ("h100-80gb-hbm3-calibrated")
  /// Copy curves up to 16 MiB instead of 256 MiB and fewer CPU worker counts: a
  /// sanity check in about a second (the gpu tests), not a profile to publish.
  bool quick = false;
  /// GPUs for the multi-GPU probes (peer copies between `device` and the next GPU, the
  /// all-reduce curve over all of them): 0 = every GPU present, 1 = none. Needs a
  /// build with NCCL; more than present is an error naming how many there are.
  int gpus = 0;
  /// Receives one line per measured figure (progress and the raw numbers behind the profile).
  std::function<void(const std::string&)> log;
  /// With `base`: measure only what drifts with the host -- the API call costs and the
  /// synchronisation wake-ups -- and keep every other figure of `base` (a built-in
  /// profile of the same GPU model), the multi-GPU figures included. Well under a
  /// second once the device is open.
  bool hostOnly = false;
  const DeviceProfile* base = nullptr;
  /// After each measurement step: (steps done, steps in all).
  std::function<void(int, int)> progress;
};

/// CUPTI buffer flushes the backend asked for, process-wide (the GPU bench reports
/// what they cost).
struct CuptiFlushStats {
  std::uint64_t count = 0;
  std::uint64_t ns = 0;
};

/// What the module offers. One object lives inside the module for the life of the
/// process (the module is never unloaded: backends and trace chunks it made may
/// outlive any caller).
class CudaModule {
 public:
  virtual ~CudaModule() = default;
  /// Asks the CUDA runtime for devices. NoDevice only for cudaErrorNoDevice /
  /// cudaErrorInsufficientDriver; anything else is an Error with its message.
  virtual CudaProbe probe() const = 0;
  /// The CUDA backend on `device`; nullptr with `error` set when it cannot be created.
  virtual std::unique_ptr<Backend> makeBackend(int device, std::string& error) const = 0;
  /// Runs the calibration's measurements (a few seconds on an H100/H200). Throws
  /// std::runtime_error naming the failing CUDA call when the device cannot be used.
  virtual DeviceProfile calibrate(const CalibrationOptions& options) const = 0;
  virtual CuptiFlushStats cuptiFlushStats() const = 0;
};

/// The module and the program share the engine's types (a Trace filled by the module,
/// a PipelineConfig read by it), so they must come from the same build. The module
/// publishes this record; the loader refuses a module whose record differs from its own.
struct CudaModuleAbi {
  int interfaceVersion = 0;  ///< raise when CudaModule or the entry record changes
  const char* pipescopeVersion = "";
  const char* compiler = "";
  std::size_t typeSizes[9] = {};  ///< sizes of the types that cross the boundary
};

inline constexpr CudaModuleAbi kCudaModuleAbi{
    2,
    PIPESCOPE_VERSION,
    __VERSION__,
    {sizeof(PipelineConfig), sizeof(Trace), sizeof(Op), sizeof(RunControl), sizeof(DeviceInfo), sizeof(DeviceProfile),
     sizeof(CalibrationOptions), sizeof(CudaProbe), sizeof(std::string)}};

/// The one symbol the module exports (extern "C", named by kCudaModuleEntrySymbol).
struct CudaModuleEntry {
  CudaModuleAbi abi;
  const CudaModule* module = nullptr;
};
inline constexpr const char* kCudaModuleEntrySymbol = "pipescope_cuda_module_entry_v1";

/// The result of loading the module: the module, or why it cannot be used (naming
/// the file or library that failed and what to do).
struct CudaModuleLoad {
  const CudaModule* module = nullptr;
  std::string path;   ///< the module file loaded or tried; empty when none was found
  std::string error;  ///< empty when `module` is set
};

/// Loads libpipescope-cuda.so on the first call (thread-safe) and returns the same
/// result on every later one. Where it looks: $PIPESCOPE_CUDA_MODULE when set (the
/// file itself); otherwise beside the executable, then where `cmake --install` puts
/// it relative to the executable (LIBDIR/pipescope next to BINDIR), then, for a
/// program inside its build tree, the module of that build. In a build without CUDA
/// it returns an error saying so.
const CudaModuleLoad& loadCudaModule();

}  // namespace pipescope
