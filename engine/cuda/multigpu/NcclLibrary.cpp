#include "cuda/multigpu/NcclLibrary.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <mutex>
#include <vector>

namespace pipescope::cuda {

namespace {

// ncclCommInitRankConfig and its ncclConfig_t (the communicators' name and blocking
// mode) came with NCCL 2.14.
constexpr int kMinVersion = 21400;

constexpr const char* kInstallHint =
    "Install NCCL 2.14 or newer (Debian/Ubuntu: libnccl2), or run several GPUs on the simulator (--backend sim)";

struct Loaded {
  NcclApi api;
  std::string error;
};

std::string loadedPath(void* handle, const std::string& fallback) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name) return map->l_name;
  return fallback;
}

void* openLibrary(const std::vector<std::string>& candidates, std::string& name, std::string& tried) {
  for (const std::string& c : candidates) {
    if (void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      name = c;
      return h;
    }
    const char* why = dlerror();
    tried += std::string(tried.empty() ? "" : "; ") + (why ? why : c);
  }
  return nullptr;
}

template <typename Fn>
bool resolve(void* handle, const char* symbol, Fn& out, std::string& missing) {
  out = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (!out) missing += std::string(missing.empty() ? "" : ", ") + symbol;
  return out != nullptr;
}

Loaded load(const std::vector<std::string>& candidates) {
  Loaded l;
  NcclApi& a = l.api;
  a.nvlsNote = forceNvlsOff();
  std::string name, tried;
  void* h = openLibrary(candidates, name, tried);
  if (!h) {
    l.error = "NCCL could not be loaded (" + tried + "). " + kInstallHint;
    return l;
  }
  a.path = loadedPath(h, name);
  std::string missing;
  resolve(h, "ncclGetVersion", a.getVersion, missing);
  resolve(h, "ncclGetErrorString", a.getErrorString, missing);
  resolve(h, "ncclGetLastError", a.getLastError, missing);
  resolve(h, "ncclGetUniqueId", a.getUniqueId, missing);
  resolve(h, "ncclCommInitRankConfig", a.commInitRankConfig, missing);
  resolve(h, "ncclCommGetAsyncError", a.commGetAsyncError, missing);
  resolve(h, "ncclCommFinalize", a.commFinalize, missing);
  resolve(h, "ncclCommDestroy", a.commDestroy, missing);
  resolve(h, "ncclCommAbort", a.commAbort, missing);
  resolve(h, "ncclAllReduce", a.allReduce, missing);
  resolve(h, "ncclGroupStart", a.groupStart, missing);
  resolve(h, "ncclGroupEnd", a.groupEnd, missing);
  if (a.getVersion && a.getVersion(&a.version) != ncclSuccess) a.version = 0;
  // The library stays loaded for the life of the process: NCCL keeps threads and
  // CUDA state that must not outlive its code.
  if (a.version > 0 && a.version < kMinVersion) {
    l.error = "NCCL " + a.versionText() + " at " + a.path + " is too old: pipescope needs 2.14 or newer. " + kInstallHint;
  } else if (!missing.empty()) {
    l.error = "NCCL at " + a.path + " (version " + (a.version ? a.versionText() : std::string("unknown")) +
              ") lacks " + missing + ". " + kInstallHint;
  }
  return l;
}

}  // namespace

std::string forceNvlsOff() {
  std::string note;
  const char* v = std::getenv("NCCL_NVLS_ENABLE");
  if (v && std::string(v) != "0")
    note = "NCCL_NVLS_ENABLE=" + std::string(v) +
           " in the environment was replaced by 0: pipescope never lets NCCL use NVLink multicast (NVLS)";
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  return note;
}

std::string NcclApi::versionText() const {
  // NCCL_VERSION: X*1000+Y*100+Z up to 2.8, X*10000+Y*100+Z from 2.9 on.
  const int major = version >= 10000 ? version / 10000 : version / 1000;
  const int minor = version >= 10000 ? version / 100 % 100 : version / 100 % 10;
  const int patch = version % 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::string NcclApi::describe(const char* call, ncclResult_t result, ncclComm_t comm) const {
  std::string text = std::string(call) + " failed: " + (getErrorString ? getErrorString(result) : "NCCL error") +
                     " (code " + std::to_string(int(result)) + ")";
  const char* last = getLastError ? getLastError(comm) : nullptr;
  if (last && *last) text += ": " + std::string(last);
  return text;
}

std::vector<std::string> ncclCandidates() {
  if (const char* v = std::getenv("PIPESCOPE_NCCL_LIBRARY"); v && *v) return {v};
  // The system's libnccl.so.2 first; the one this build was configured with after it.
  std::vector<std::string> c{"libnccl.so.2"};
#ifdef PIPESCOPE_NCCL_LIBRARY_PATH
  c.emplace_back(PIPESCOPE_NCCL_LIBRARY_PATH);
#endif
  return c;
}

NcclApi loadNccl(const std::vector<std::string>& candidates) {
  Loaded l = load(candidates);
  if (!l.error.empty()) throw NcclError(l.error);
  return l.api;
}

const NcclApi& ncclApi() {
  static std::once_flag once;
  static Loaded loaded;
  std::call_once(once, [] { loaded = load(ncclCandidates()); });
  if (!loaded.error.empty()) throw NcclError(loaded.error);
  return loaded.api;
}

}  // namespace pipescope::cuda
