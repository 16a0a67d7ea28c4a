#pragma once
// Calibration measurements between GPUs (docs/fidelity.md): peer copies by size one
// way, both ways at once, and beside a host-to-device copy; and NCCL's all-reduce
// over every GPU of the run by size. Each returns raw figures; the calibration turns
// them into the device profile's multi-GPU fields.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/DeviceProfile.h"

namespace pipescope::cuda {

using CalibrationLog = std::function<void(const std::string&)>;

struct PeerCopyCalibration {
  int from = 0, to = 1;     ///< the CUDA devices measured
  bool peerAccess = false;  ///< cudaDeviceCanAccessPeer both ways (else the driver stages through host memory)
  std::string linkName;     ///< "NVLink", "PCIe peer-to-peer" or "via host" (PeerAccess.h)
  double latencyNs = 0;     ///< a 4 KiB peer copy's time beyond its bytes at full speed
  std::vector<BandwidthPoint> oneWay;    ///< cudaMemcpyPeerAsync from -> to, alone (latency taken off)
  std::vector<BandwidthPoint> bothWays;  ///< each direction's rate while the other runs too
  double h2dAloneGBps = 0;               ///< pinned 256 MiB H2D into `from`, alone
  double h2dBesidePeerGBps = 0;          ///< the same H2D while `from` -> `to` copies run
  double peerBesideH2dGBps = 0;          ///< the peer copies' rate meanwhile
};

/// Peer copies between `from` and `to` (enables peer access where possible), sizes
/// from 64 KiB to 256 MiB (16 MiB when `quick`).
PeerCopyCalibration calibratePeerCopies(int from, int to, bool quick, const CalibrationLog& log);

struct AllReducePoint {
  std::uint64_t bytes = 0;
  double ns = 0;        ///< one in-place float sum all-reduce, slowest GPU
  double busGBps = 0;   ///< nccl-tests' bus bandwidth: bytes / ns x 2(n-1)/n
};

struct AllReduceCalibration {
  std::vector<int> devices;
  std::string ncclVersion;
  std::vector<AllReducePoint> curve;
  /// The share of a GPU's speed a kernel loses while all-reduces run beside it
  /// (NCCL's kernels take SMs): 1 - alone / beside for a ~5 ms model kernel on the
  /// first GPU, against the same kernel with 64 MiB all-reduces looping meanwhile.
  double smShare = 0;
  /// Which side pays that share when a kernel is already running as the all-reduces
  /// arrive: 1 - (the kernel's delay) / (smShare x the all-reduces' time alone); 1: the
  /// kernel keeps its SMs and NCCL waits, 0: the kernel gives way.
  double yieldShare = 0;
  /// The host's time for one group call (ncclGroupStart, one ncclAllReduce per GPU,
  /// ncclGroupEnd) with every GPU busy meanwhile, as in a run where the calls queue
  /// behind compute: the median over bursts of calls of each burst's wall time per call.
  double groupCallNs = 0;
};

/// ncclAllReduce over `devices` (one communicator each, one process), sizes 1 MiB to
/// 256 MiB (16 MiB when `quick`): time per call from CUDA events on every GPU around a
/// loop of group calls, after warm-up calls at each size; then the SM share.
AllReduceCalibration calibrateAllReduce(const std::vector<int>& devices, bool quick, const CalibrationLog& log);

struct HostLinksCalibration {
  std::vector<int> devices;
  std::uint64_t bytes = 0;  ///< each copy
  int copies = 0;           ///< per direction per GPU
  /// Every GPU copying host-to-device and device-to-host at once, all released by
  /// one event: all the bytes over the slowest GPU's time (the best of 3 rounds).
  double togetherGBps = 0;
  double h2dGBps = 0;  ///< the same with every GPU copying host-to-device only
  double d2hGBps = 0;  ///< and device-to-host only
};

/// Pinned copies on every GPU of `devices` at once (64 MiB each, 16 MiB when
/// `quick`), host-to-device only, device-to-host only, then both: what the host's
/// memory and root complex carry for all the GPUs' links together.
HostLinksCalibration calibrateHostLinks(const std::vector<int>& devices, bool quick, const CalibrationLog& log);

struct CallSwitchCalibration {
  std::vector<int> devices;
  int streams = 0;  ///< per GPU
  /// A copy call's host time right after a call of another kind over the same call in
  /// a run of copies (medians over every call), with the calls spread over every GPU
  /// of `devices` as a data-parallel pipeline issues them, and on the first GPU alone.
  double severalGpusNs = 0, oneGpuNs = 0;
};
/// The cost of switching call kinds on the submit thread: `streams` streams per GPU
/// each get an H2D (64 KiB, pinned), a small kernel, a D2H and an event record per
/// round, issued batch by batch (H2D, kernel, D2H, record, the next batch on the next
/// GPU) against the same calls grouped by kind, each call timed on the host; once over
/// every GPU, once on the first. Launches are timed and logged too.
CallSwitchCalibration calibrateCallSwitch(const std::vector<int>& devices, int streams, bool quick,
                                          const CalibrationLog& log);
/// nccl-tests' bus bandwidth for an all-reduce of `bytes` in `ns` over `gpus` GPUs.
double allReduceBusGBps(std::uint64_t bytes, double ns, int gpus);

}  // namespace pipescope::cuda
