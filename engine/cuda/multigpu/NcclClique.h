#pragma once
// One NCCL communicator per GPU of a run, all driven from the engine thread.
//
// They are blocking communicators (as ncclCommInitAll, nccl-tests and PyTorch make
// them): a group call launches its kernels on the calling thread and returns. On
// non-blocking ones NCCL starts a thread for every group call and the caller must poll
// until it is done; on the GPU hosts that cost milliseconds per all-reduce, which
// delayed every bucket past the compute it was meant to overlap.
//
// Creation has no time limit in NCCL, and a clique that never comes up (a broken
// NVLink, a GPU held by another process) must end the run with a message, not hang it:
// the communicators are created on a thread of their own, waited for with a limit, and
// left to that thread (destroyed when it ever returns) when the limit passes.
#include <chrono>
#include <string>
#include <vector>

#include "cuda/multigpu/NcclLibrary.h"

namespace pipescope::cuda {

class NcclClique {
 public:
  /// Rank r on CUDA device devices[r]. Throws NcclError naming NCCL, the GPUs and what
  /// failed, or that creation did not finish within `timeout`.
  NcclClique(const std::vector<int>& devices, std::chrono::milliseconds timeout);
  /// Finalises and destroys the communicators; aborts them after a failed call.
  ~NcclClique();
  NcclClique(const NcclClique&) = delete;
  NcclClique& operator=(const NcclClique&) = delete;

  const NcclApi& api() const { return api_; }
  int size() const { return int(comms_.size()); }
  ncclComm_t comm(int rank) const { return comms_[std::size_t(rank)]; }
  const std::vector<int>& devices() const { return devices_; }

  /// After a call or group call: anything but ncclSuccess, or an asynchronous error any
  /// communicator reports, throws NcclError naming `call` (and the communicators are
  /// aborted when the clique goes).
  void check(const char* call, ncclResult_t result);

  /// How long communicator creation may take: PIPESCOPE_NCCL_TIMEOUT_S seconds when set, else 60 s.
  static std::chrono::milliseconds defaultTimeout();

 private:
  void abortAll() noexcept;
  std::string gpuList() const;

  const NcclApi& api_;
  std::vector<int> devices_;
  std::vector<ncclComm_t> comms_;
  bool failed_ = false;
};

}  // namespace pipescope::cuda
