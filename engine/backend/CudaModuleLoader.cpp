// Finds and loads libpipescope-cuda.so (backend/CudaModule.h). Every way it can fail
// becomes a message naming the file or library at fault and what to do about it.
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <vector>

#include "backend/CudaModule.h"

namespace pipescope {

namespace {

#if PIPESCOPE_HAVE_CUDA

namespace fs = std::filesystem;

fs::path executableDir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : self.parent_path();
}

bool isInside(const fs::path& dir, const fs::path& root) {
  const fs::path d = dir.lexically_normal(), r = root.lexically_normal();
  auto di = d.begin();
  for (auto ri = r.begin(); ri != r.end(); ++ri, ++di) {
    if (ri->empty()) continue;  // the trailing "" of a path ending in '/'
    if (di == d.end() || *di != *ri) return false;
  }
  return true;
}

/// Where the module may be, in order (backend/CudaModule.h says why this order).
std::vector<fs::path> candidatePaths() {
  if (const char* env = std::getenv("PIPESCOPE_CUDA_MODULE"); env && *env) return {fs::path(env)};
  std::vector<fs::path> paths;
  const fs::path exeDir = executableDir();
  if (exeDir.empty()) return paths;
  paths.push_back(exeDir / PIPESCOPE_CUDA_MODULE_NAME);
  paths.push_back((exeDir / PIPESCOPE_CUDA_MODULE_INSTALL_DIR / PIPESCOPE_CUDA_MODULE_NAME).lexically_normal());
  // A program in its build tree uses the module of the same build; an installed one
  // never looks there.
  if (isInside(exeDir, PIPESCOPE_BUILD_TREE)) paths.emplace_back(PIPESCOPE_CUDA_MODULE_BUILD_FILE);
  return paths;
}

/// The libraries the module links, in words, for messages.
std::string libraryInWords(const std::string& file) {
  struct Known {
    const char* prefix;
    const char* words;
  };
  static constexpr Known kKnown[] = {{"libcublasLt", "cuBLASLt"}, {"libcublas", "cuBLAS"},
                                     {"libcupti", "CUPTI"},       {"libnccl", "NCCL"},
                                     {"libnvrtc", "NVRTC"},       {"libcudart", "the CUDA runtime"}};
  for (const Known& k : kKnown)
    if (file.rfind(k.prefix, 0) == 0) return std::string(k.words) + " (" + file + ")";
  return file;
}

/// Turns dlopen's message into one that names the library at fault. dlerror() starts
/// with the file it could not use: the module itself, or one of its dependencies.
std::string explainDlopenFailure(const fs::path& module, const std::string& dlError) {
  const std::string failedFile = dlError.substr(0, dlError.find(": "));
  if (fs::path(failedFile) == module || fs::path(failedFile).filename() == module.filename())
    return "the CUDA backend module " + module.string() + " could not be loaded: " + dlError +
           ". Rebuild or reinstall pipescope with its CUDA backend, or point PIPESCOPE_CUDA_MODULE at a working copy";
  return "the CUDA backend (" + module.string() + ") needs " +
         libraryInWords(fs::path(failedFile).filename().string()) + ", which could not be loaded: " + dlError +
         ". Install the CUDA toolkit's libraries, or add the directory holding them to LD_LIBRARY_PATH";
}

std::string describe(const CudaModuleAbi& abi) {
  return std::string("pipescope ") + abi.pipescopeVersion + ", compiler " + abi.compiler;
}

bool sameAbi(const CudaModuleAbi& a, const CudaModuleAbi& b) {
  return a.interfaceVersion == b.interfaceVersion && std::strcmp(a.pipescopeVersion, b.pipescopeVersion) == 0 &&
         std::strcmp(a.compiler, b.compiler) == 0 && std::memcmp(a.typeSizes, b.typeSizes, sizeof a.typeSizes) == 0;
}

CudaModuleLoad load() {
  CudaModuleLoad result;
  const std::vector<fs::path> paths = candidatePaths();
  const bool overridden = std::getenv("PIPESCOPE_CUDA_MODULE") && *std::getenv("PIPESCOPE_CUDA_MODULE");
  fs::path found;
  for (const fs::path& p : paths) {
    std::error_code ec;
    if (fs::exists(p, ec)) {
      found = p;
      break;
    }
  }
  if (found.empty()) {
    if (overridden) {
      result.path = paths.front().string();
      result.error = "the CUDA backend module " + result.path +
                     " (named by PIPESCOPE_CUDA_MODULE) does not exist; unset PIPESCOPE_CUDA_MODULE or point it at "
                     "libpipescope-cuda.so";
      return result;
    }
    std::string looked;
    for (const fs::path& p : paths) looked += (looked.empty() ? "" : ", ") + p.string();
    result.error = std::string("the CUDA backend module ") + PIPESCOPE_CUDA_MODULE_NAME +
                   " was not found (looked for " + looked +
                   "); reinstall pipescope with its CUDA backend, or set PIPESCOPE_CUDA_MODULE to the file";
    return result;
  }
  result.path = found.string();
  // RTLD_NOW: a missing symbol is reported here, not as a crash in the middle of a
  // run. RTLD_NODELETE: objects the module made (backends, trace chunks with its
  // deleters) may outlive everything else.
  void* handle = dlopen(result.path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle) {
    const char* why = dlerror();
    result.error = explainDlopenFailure(found, why ? why : "unknown error");
    return result;
  }
  const auto* entry = static_cast<const CudaModuleEntry*>(dlsym(handle, kCudaModuleEntrySymbol));
  if (!entry || !entry->module) {
    result.error = result.path + " is not a CUDA backend module of this pipescope (it has no " +
                   kCudaModuleEntrySymbol + "); use the libpipescope-cuda.so built with this program";
    return result;
  }
  if (!sameAbi(entry->abi, kCudaModuleAbi)) {
    result.error = "the CUDA backend module " + result.path + " comes from another build (" + describe(entry->abi) +
                   "; this program: " + describe(kCudaModuleAbi) +
                   "); use the libpipescope-cuda.so built with this program";
    return result;
  }
  result.module = entry->module;
  return result;
}

#else

CudaModuleLoad load() {
  CudaModuleLoad result;
  result.error = "this build of pipescope has no CUDA backend (it was built without nvcc)";
  return result;
}

#endif

}  // namespace

const CudaModuleLoad& loadCudaModule() {
  static const CudaModuleLoad loaded = load();
  return loaded;
}

}  // namespace pipescope
