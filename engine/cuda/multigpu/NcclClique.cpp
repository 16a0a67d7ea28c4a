#include "cuda/multigpu/NcclClique.h"

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include "cuda/CudaError.h"

namespace pipescope::cuda {

namespace {

std::string secondsText(std::chrono::milliseconds t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", double(t.count()) / 1000.0);
  return buf;
}

/// What the creating thread hands back. Shared by the clique and the thread, so it
/// outlives a clique that stopped waiting.
struct Creation {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  bool abandoned = false;  ///< the clique gave up waiting: the thread destroys what it made
  std::vector<ncclComm_t> comms;
  std::string failure;
};

/// The single-process form of ncclCommInitAll: every rank in one group from this thread.
void createComms(const NcclApi& api, const std::vector<int>& devices, ncclUniqueId id,
                 const std::shared_ptr<Creation>& out) {
  const int n = int(devices.size());
  std::vector<ncclComm_t> comms(devices.size(), nullptr);
  std::string failure;
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 1;
  config.commName = "pipescope";
  ncclResult_t r = api.groupStart();
  if (r != ncclSuccess) failure = api.describe("ncclGroupStart", r, nullptr);
  bool grouped = r == ncclSuccess;
  for (int rank = 0; failure.empty() && rank < n; ++rank) {
    const cudaError_t e = cudaSetDevice(devices[std::size_t(rank)]);
    if (e != cudaSuccess) {
      failure = std::string("cudaSetDevice(") + std::to_string(devices[std::size_t(rank)]) + ") failed: " +
                cudaGetErrorString(e);
      break;
    }
    r = api.commInitRankConfig(&comms[std::size_t(rank)], n, id, rank, &config);
    if (r != ncclSuccess) failure = api.describe("ncclCommInitRankConfig", r, comms[std::size_t(rank)]);
  }
  if (grouped) {
    r = api.groupEnd();
    if (failure.empty() && r != ncclSuccess) failure = api.describe("ncclGroupEnd", r, nullptr);
  }
  std::lock_guard lock(out->mutex);
  if (!failure.empty() || out->abandoned) {
    for (ncclComm_t c : comms)
      if (c) api.commAbort(c);
  } else {
    out->comms = comms;
  }
  out->failure = failure;
  out->done = true;
  out->finished.notify_all();
}

}  // namespace

std::chrono::milliseconds NcclClique::defaultTimeout() {
  if (const char* v = std::getenv("PIPESCOPE_NCCL_TIMEOUT_S")) {
    const double s = std::atof(v);
    if (s > 0) return std::chrono::milliseconds(std::int64_t(s * 1000));
  }
  return std::chrono::seconds(60);
}

std::string NcclClique::gpuList() const {
  std::string s;
  for (int d : devices_) s += (s.empty() ? "" : ", ") + std::to_string(d);
  return "GPUs " + s;
}

NcclClique::NcclClique(const std::vector<int>& devices, std::chrono::milliseconds timeout)
    : api_(ncclApi()), devices_(devices) {
  ncclUniqueId id{};
  const ncclResult_t r = api_.getUniqueId(&id);
  if (r != ncclSuccess)
    throw NcclError("NCCL could not start on " + gpuList() + ": " + api_.describe("ncclGetUniqueId", r, nullptr));
  auto creation = std::make_shared<Creation>();
  std::thread(createComms, std::cref(api_), devices, id, creation).detach();
  std::unique_lock lock(creation->mutex);
  if (!creation->finished.wait_for(lock, timeout, [&] { return creation->done; })) {
    creation->abandoned = true;
    throw NcclError("NCCL communicator creation over " + gpuList() + " did not finish within " +
                    secondsText(timeout) +
                    " s. Check that no other process holds these GPUs (nvidia-smi) and that NCCL works on this "
                    "machine (NCCL_DEBUG=INFO prints why); PIPESCOPE_NCCL_TIMEOUT_S sets the time limit");
  }
  if (!creation->failure.empty())
    throw NcclError("NCCL communicator creation over " + gpuList() + " failed: " + creation->failure +
                    ". Check that no other process holds these GPUs (nvidia-smi) and that NCCL works on this "
                    "machine (NCCL_DEBUG=INFO prints why)");
  comms_ = creation->comms;
}

void NcclClique::check(const char* call, ncclResult_t result) {
  std::string failure;
  if (result != ncclSuccess) {
    failure = api_.describe(call, result, comms_.empty() ? nullptr : comms_[0]);
  } else {
    // A blocking call returns what it saw; a peer's failure shows up as the
    // communicator's asynchronous error.
    for (std::size_t i = 0; failure.empty() && i < comms_.size(); ++i) {
      ncclResult_t state = ncclSuccess;
      const ncclResult_t q = api_.commGetAsyncError(comms_[i], &state);
      if (q != ncclSuccess) state = q;
      if (state != ncclSuccess && state != ncclInProgress)
        failure = api_.describe(call, state, comms_[i]) + " on GPU " + std::to_string(devices_[i]);
    }
  }
  if (failure.empty()) return;
  failed_ = true;
  throw NcclError("NCCL on " + gpuList() + ": " + failure);
}

void NcclClique::abortAll() noexcept {
  for (ncclComm_t& c : comms_) {
    if (c) api_.commAbort(c);
    c = nullptr;
  }
}

NcclClique::~NcclClique() {
  // A clique whose call failed is aborted (finalising could wait for work that never
  // ends); otherwise finalised (flushes outstanding work) and destroyed.
  if (!failed_) {
    for (ncclComm_t c : comms_)
      if (c && api_.commFinalize(c) != ncclSuccess) failed_ = true;
  }
  if (failed_) {
    abortAll();
    return;
  }
  for (ncclComm_t& c : comms_) {
    if (c) api_.commDestroy(c);
    c = nullptr;
  }
}

}  // namespace pipescope::cuda
