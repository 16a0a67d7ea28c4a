#pragma once
// Where libpipescope-inject.so is, and the environment that makes CUDA load it into a
// program: CUDA_INJECTION64_PATH (the driver calls its InitializeInjection at cuInit)
// and NVTX_INJECTION64_PATH (it hands NVTX on to CUPTI, for the program's NVTX ranges).
#include <map>
#include <optional>
#include <string>

namespace pipescope::record {

inline constexpr const char* kInjectLibraryVariable = "PIPESCOPE_INJECT_LIBRARY";

/// The library: $PIPESCOPE_INJECT_LIBRARY when set, else the one this build made,
/// else next to this program or in ../lib/pipescope. nullopt with `whyNot` saying
/// what was looked for and what to do.
std::optional<std::string> findInjectionLibrary(std::string& whyNot);

/// The variables a recorded program is started with.
std::map<std::string, std::string> injectionEnvironment(const std::string& library, const std::string& socketPath,
                                                        int device);

}  // namespace pipescope::record
