#include "record/InjectionLibrary.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "record/WireFormat.h"

namespace pipescope::record {

namespace fs = std::filesystem;

namespace {
constexpr const char* kFileName = "libpipescope-inject.so";

bool isFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}
}  // namespace

std::optional<std::string> findInjectionLibrary(std::string& whyNot) {
  if (const char* v = std::getenv(kInjectLibraryVariable); v && *v) {
    if (isFile(v)) return fs::absolute(v).string();
    whyNot = std::string(kInjectLibraryVariable) + "='" + v + "' is not a file";
    return std::nullopt;
  }
  std::vector<fs::path> candidates;
#ifdef PIPESCOPE_INJECT_BUILD_PATH
  candidates.emplace_back(PIPESCOPE_INJECT_BUILD_PATH);
#endif
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    candidates.push_back(self.parent_path() / kFileName);
    candidates.push_back(self.parent_path().parent_path() / "lib" / "pipescope" / kFileName);
  }
  for (const auto& c : candidates)
    if (isFile(c)) return c.string();
  whyNot = std::string(kFileName) + " was not found";
#if PIPESCOPE_HAVE_CUDA
  whyNot += " (looked in:";
  for (const auto& c : candidates) whyNot += " " + c.string();
  whyNot += "); build its target (pipescope-inject) or set " + std::string(kInjectLibraryVariable) + " to it";
#else
  whyNot += ": this pipescope was built without the CUDA backend, which builds the library that records programs. "
            "Build pipescope with CUDA (the CUDA toolkit and its CUPTI), or set " +
            std::string(kInjectLibraryVariable) + " to a libpipescope-inject.so";
#endif
  return std::nullopt;
}

std::map<std::string, std::string> injectionEnvironment(const std::string& library, const std::string& socketPath,
                                                        int device) {
  std::map<std::string, std::string> env{
      {"CUDA_INJECTION64_PATH", library},
      {"NVTX_INJECTION64_PATH", library},
      {wire::kSocketVariable, socketPath},
  };
  if (device >= 0) env[wire::kDeviceVariable] = std::to_string(device);
  return env;
}

}  // namespace pipescope::record
