#include "cuda/multigpu/NcclClique.h"

#include <cstdio>
#include <cstdlib>

#include "cuda/CudaError.h"
#include "cuda/DeadlinePoll.h"

namespace pipescope::cuda {

namespace {
using Clock = std::chrono::steady_clock;

std::string secondsText(std::chrono::milliseconds t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", double(t.count()) / 1000.0);
  return buf;
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
    : api_(ncclApi()), devices_(devices), comms_(devices.size(), nullptr) {
  const int n = int(devices.size());
  ncclUniqueId id{};
  ncclResult_t r = api_.getUniqueId(&id);
  if (r != ncclSuccess)
    throw NcclError("NCCL could not start on " + gpuList() + ": " + api_.describe("ncclGetUniqueId", r, nullptr));
  // Every rank in one group from this thread: the single-process form of ncclCommInitAll,
  // with a configuration that makes creation asynchronous.
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  config.commName = "pipescope";
  std::string failure;
  r = api_.groupStart();
  if (r != ncclSuccess) failure = api_.describe("ncclGroupStart", r, nullptr);
  for (int rank = 0; failure.empty() && rank < n; ++rank) {
    const cudaError_t e = cudaSetDevice(devices[std::size_t(rank)]);
    if (e != cudaSuccess) {
      failure = std::string("cudaSetDevice(") + std::to_string(devices[std::size_t(rank)]) + ") failed: " +
                cudaGetErrorString(e);
      break;
    }
    r = api_.commInitRankConfig(&comms_[std::size_t(rank)], n, id, rank, &config);
    if (r != ncclSuccess && r != ncclInProgress)
      failure = api_.describe("ncclCommInitRankConfig", r, comms_[std::size_t(rank)]);
  }
  r = api_.groupEnd();
  if (failure.empty() && r != ncclSuccess && r != ncclInProgress) failure = api_.describe("ncclGroupEnd", r, nullptr);
  if (!failure.empty()) {
    abortAll();
    throw NcclError("NCCL communicator creation over " + gpuList() + " failed: " + failure);
  }
  try {
    settle("ncclCommInitRankConfig", ncclInProgress, timeout);
  } catch (const NcclError& e) {
    abortAll();
    throw NcclError("NCCL communicator creation over " + gpuList() + " failed: " + e.what() +
                    ". Check that no other process holds these GPUs (nvidia-smi) and that NCCL works on this "
                    "machine (NCCL_DEBUG=INFO prints why); PIPESCOPE_NCCL_TIMEOUT_S sets the time limit");
  }
}

void NcclClique::settle(const char* call, ncclResult_t result, std::chrono::milliseconds timeout) {
  if (result != ncclSuccess && result != ncclInProgress)
    throw NcclError("NCCL on " + gpuList() + ": " + api_.describe(call, result, comms_.empty() ? nullptr : comms_[0]));
  std::string failure;
  for (std::size_t i = 0; i < comms_.size(); ++i) {
    ncclComm_t comm = comms_[i];
    if (!comm) continue;
    const PollState s = pollUntil(
        [&] {
          ncclResult_t state = ncclSuccess;
          const ncclResult_t q = api_.commGetAsyncError(comm, &state);
          if (q != ncclSuccess) state = q;
          if (state == ncclInProgress) return PollState::Pending;
          if (state != ncclSuccess) {
            failure = api_.describe(call, state, comm) + " on GPU " + std::to_string(devices_[i]);
            return PollState::Failed;
          }
          return PollState::Done;
        },
        Clock::now() + timeout);
    if (s == PollState::Failed) throw NcclError(failure);
    if (s == PollState::Pending)
      throw NcclError(std::string(call) + " did not finish on GPU " + std::to_string(devices_[i]) + " within " +
                      secondsText(timeout) + " s");
  }
}

void NcclClique::abortAll() noexcept {
  for (ncclComm_t& c : comms_) {
    if (c) api_.commAbort(c);
    c = nullptr;
  }
}

NcclClique::~NcclClique() {
  // Finalise (flushes outstanding work; asynchronous on these communicators), wait a
  // bounded time, destroy; a clique that does not finalise is aborted instead.
  bool finalized = true;
  for (ncclComm_t c : comms_)
    if (c && api_.commFinalize(c) != ncclSuccess) {
      ncclResult_t state = ncclSuccess;
      if (api_.commGetAsyncError(c, &state) != ncclSuccess || (state != ncclSuccess && state != ncclInProgress))
        finalized = false;
    }
  try {
    if (finalized) settle("ncclCommFinalize", ncclInProgress, std::chrono::seconds(10));
  } catch (...) {  // destructors never throw; the run already reported its error, if any
    finalized = false;
  }
  if (!finalized) {
    abortAll();
    return;
  }
  for (ncclComm_t& c : comms_) {
    if (c) api_.commDestroy(c);
    c = nullptr;
  }
}

}  // namespace pipescope::cuda
