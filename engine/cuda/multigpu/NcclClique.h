#pragma once
// One NCCL communicator per GPU of a run, all driven from the engine thread. They are
// created non-blocking (ncclConfig_t blocking = 0) and polled with a time limit:
// ncclCommInitAll has none, and a clique that never comes up (a broken NVLink, a GPU
// held by another process) must end the run with a message, not hang it.
#include <chrono>
#include <string>
#include <vector>

#include "cuda/multigpu/NcclLibrary.h"

namespace pipescope::cuda {

class NcclClique {
 public:
  /// Rank r on CUDA device devices[r]. Throws NcclError naming NCCL, the GPUs and what
  /// failed, or that creation did not finish within `timeout` (everything is aborted).
  NcclClique(const std::vector<int>& devices, std::chrono::milliseconds timeout);
  /// Finalises and destroys the communicators (aborts them if that does not finish).
  ~NcclClique();
  NcclClique(const NcclClique&) = delete;
  NcclClique& operator=(const NcclClique&) = delete;

  const NcclApi& api() const { return api_; }
  int size() const { return int(comms_.size()); }
  ncclComm_t comm(int rank) const { return comms_[std::size_t(rank)]; }
  const std::vector<int>& devices() const { return devices_; }

  /// After a call (or group) on non-blocking communicators: `result` ncclSuccess or
  /// ncclInProgress waits until every communicator is idle again; anything else, an
  /// asynchronous error or no end within `timeout` throws NcclError naming `call`.
  void settle(const char* call, ncclResult_t result, std::chrono::milliseconds timeout);

  /// How long communicator creation may take: PIPESCOPE_NCCL_TIMEOUT_S seconds when set, else 60 s.
  static std::chrono::milliseconds defaultTimeout();

 private:
  void abortAll() noexcept;
  std::string gpuList() const;

  const NcclApi& api_;
  std::vector<int> devices_;
  std::vector<ncclComm_t> comms_;
};

}  // namespace pipescope::cuda
