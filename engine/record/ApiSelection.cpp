#include "record/ApiSelection.h"

#include <array>

namespace pipescope::record {

namespace {

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

bool endsWith(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

/// "_v7000", "_v2": a version suffix.
bool cutVersion(std::string_view& s) {
  const std::size_t v = s.rfind("_v");
  if (v == std::string_view::npos || v + 2 >= s.size()) return false;
  for (std::size_t i = v + 2; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  s = s.substr(0, v);
  return true;
}

// Parts of names (case as CUDA spells them) of calls that put work on a GPU, make
// something wait, manage memory or set a context up.
constexpr std::array<std::string_view, 28> kRecorded = {"Launch",
                                                        "Memcpy",
                                                        "Memset",
                                                        "Prefetch",
                                                        "MemDiscard",
                                                        "Decompress",
                                                        "StreamAddCallback",
                                                        "StreamAttachMem",
                                                        "Synchronize",
                                                        "EventRecord",
                                                        "WaitEvent",
                                                        "ExternalSemaphore",
                                                        "StreamWaitValue",
                                                        "StreamWriteValue",
                                                        "StreamBatchMemOp",
                                                        "Malloc",
                                                        "Free",
                                                        "MemAlloc",
                                                        "HostAlloc",
                                                        "HostRegister",
                                                        "HostUnregister",
                                                        "MemCreate",
                                                        "MemMap",
                                                        "MemUnmap",
                                                        "MemRelease",
                                                        "ModuleLoad",
                                                        "LibraryLoad",
                                                        "CtxCreate"};

}  // namespace

std::string apiBaseName(std::string_view name) {
  while (!name.empty() && name.front() == '_') name.remove_prefix(1);
  cutVersion(name);
  for (std::string_view tail : {"_ptsz", "_ptds"})
    if (endsWith(name, tail)) name.remove_suffix(tail.size());
  cutVersion(name);  // "cuMemcpyHtoD_v2_ptds"
  return std::string(name);
}

bool recordsApiCall(std::string_view cuptiName) {
  const std::string name = apiBaseName(cuptiName);
  // Building or editing a graph puts nothing on a GPU; launching or uploading one does.
  if (contains(name, "Graph"))
    return endsWith(name, "GraphLaunch") || endsWith(name, "GraphUpload") || contains(name, "GraphInstantiate");
  // Queries and settings that mention a recorded word ("cudaFuncGetAttributes" of a
  // launch, "cuMemGetAllocationGranularity", "cudaMemPoolSetAttribute").
  if (contains(name, "Get") || contains(name, "SetAttribute") || contains(name, "Query") || contains(name, "Occupancy"))
    return false;
  if (name == "cuDevicePrimaryCtxRetain" || name == "cudaDeviceReset") return true;
  for (std::string_view part : kRecorded)
    if (contains(name, part)) return true;
  return false;
}

ApiDomains apiDomainsFromSetting(const char* value) {
  ApiDomains d;
  const std::string_view v = value ? value : "";
  if (v.empty() || v == "all" || v == "both") return d;
  if (v == "runtime") {
    d.driver = false;
  } else if (v == "driver") {
    d.runtime = false;
  } else if (v == "none") {
    d.runtime = d.driver = false;
  } else {
    d.error = std::string(kApiDomainsVariable) + "='" + std::string(v) +
              "' is not one of all, runtime, driver, none: runtime and driver calls are both recorded";
  }
  return d;
}

}  // namespace pipescope::record
