#pragma once
// How long GPU-to-GPU traffic takes on a device profile, apart from contention:
// a peer copy over the link between two GPUs, and an NCCL all-reduce across n GPUs
// (docs/simulator.md, "Several GPUs").
#include <cstdint>

#include "sim/DeviceProfile.h"

namespace pipescope {

/// Bandwidth (GB/s) of one peer copy of `bytes` in one direction: the profile's peer
/// curve (or flat rate) with peer access; without it, the copy is staged through
/// pinned host memory, a D2H then an H2D in pipelined pieces, so it runs at the
/// slower of the two pinned rates.
double peerCopyGBps(const DeviceProfile& p, std::uint64_t bytes);
/// Link time of one peer copy running alone: the link's fixed latency (twice the copy
/// latency when staged through the host) plus bytes / bandwidth.
double peerCopySoloNs(const DeviceProfile& p, std::uint64_t bytes);

/// NCCL all-reduce bus bandwidth (nccl-tests' busbw = algbw x 2(n-1)/n) for `bytes`
/// at the GPU count the profile's curve was measured with.
double allreduceBusGBps(const DeviceProfile& p, std::uint64_t bytes);

/// Time of one all-reduce of `bytes` across `gpus` GPUs once every GPU has joined it.
/// The ring algorithm: 2(n-1) steps, each moving bytes/n over every link at once, each
/// paying a per-step latency. The profile's curve, measured at n_ref GPUs, gives the
/// time at n_ref: t_ref = 2(n_ref-1)/n_ref x bytes / busbw(bytes). Its latency part
/// is 2(n_ref-1) steps x the step latency; the rest, the bandwidth part, scales with
/// (n-1)/n (the bytes each link carries). So
///   t(n) = 2(n-1) x step latency + max(0, t_ref - 2(n_ref-1) x step latency) x
///          ((n-1)/n) / ((n_ref-1)/n_ref).
/// 0 for one GPU (nothing to exchange) or 0 bytes. The curve already holds NCCL's
/// own choice of algorithm and protocol at each size (tree or LL for small buffers),
/// which is why small sizes run faster than a pure ring with that latency would.
double allreduceNs(const DeviceProfile& p, std::uint64_t bytes, int gpus);

/// The host's time for one GPU's part of a group all-reduce call: the profile's
/// measured group call (allreduceCallNs, over allreduceCurveGpus GPUs) shared evenly
/// by its GPUs, so a call over n GPUs costs n of these; one kernel launch when the
/// profile has no such measurement.
double allreduceCallNsPerGpu(const DeviceProfile& p);
/// The submit thread's extra time per GPU op over `gpus` GPUs: the profile's
/// multiGpuHostOpOverheadNs, measured over allreduceCurveGpus GPUs, in proportion to
/// the GPUs beyond the first (the fit gave 0.3-0.8 us over 2 H200s, 2.7-6.2 over 4);
/// 0 on one GPU.
double multiGpuHostOpOverheadNs(const DeviceProfile& p, int gpus);

/// Bus bandwidth an all-reduce of `bytes` over `gpus` achieved in `ns`, as
/// nccl-tests reports it: bytes / ns x 2(n-1)/n.
double allreduceBusGBpsOf(std::uint64_t bytes, int gpus, double ns);

}  // namespace pipescope
