#pragma once
// The device side of the simulator: in-order streams feeding hardware engines,
// driven by time-ordered events. The host side (Simulator) submits commands at its
// own clock, in time order, and asks for the time a command completed; the model
// only ever advances as far as the host needs, so later submissions always lie in
// its future.
//
// One model holds every GPU of a run: each GPU has its copy engines, its compute
// engine, a link slot (kernels bound by the host link, which run side by side: see
// EngineId::Link) and a collective engine (NCCL's kernels, beside the compute engine); each
// direction of each pair of GPUs is a link engine (peer copies). Streams are
// numbered across all GPUs by the host side. An op may also wait for an op of
// another stream, on any GPU (cudaStreamWaitEvent), and a collective's ops on the
// GPUs of one call end together, once the last GPU has joined it.
//
// Events, and why there is no general event queue: the only events are "command
// submitted" and "engine finished its op". Submissions arrive in time order, so they
// are simply the ops from nextSubmit_ on; each engine has at most one finish that
// still counts (a rate change supersedes the earlier one). The next event is the
// earliest of the candidates, ties broken by the order the events were created
// (seq), exactly as a priority queue of (time, seq) would order them.
#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "sim/DeviceProfile.h"
#include "sim/RingBuffer.h"
#include "trace/Op.h"

namespace pipescope {

/// Link: kernels bound by the host link (faulting managed pages, mapped memory), which
/// run side by side with each other and with the compute engine's kernels when the
/// profile has their overlap curve (DeviceProfile::managedFaultStreamsSpeedup,
/// mappedStreamsSpeedup); on a single-queue device they are compute kernels.
enum class EngineId : std::uint8_t { H2D = 0, D2H = 1, Compute = 2, Collective = 3, PeerLink = 4, Link = 5 };

/// Which overlap curve of the profile a link-bound kernel follows.
enum class LinkKind : std::uint8_t { None, ManagedFault, Mapped };

inline constexpr std::uint64_t kNoGpuOp = ~std::uint64_t(0);
inline constexpr int kMaxModelGpus = 8;

/// A command as the host issues it.
struct GpuCommand {
  OpKind kind = OpKind::Kernel;
  int stream = 0;  ///< numbered across all GPUs by the host side
  EngineId engine = EngineId::Compute;  ///< copies map onto the shared copy engine on one-engine devices
  double soloNs = 0;                    ///< engine time when nothing else competes (a collective: once all joined)
  double gbps = 0;                      ///< copies: own bandwidth, for sharing the bidirectional cap
  int device = 0;                       ///< the GPU whose engine runs it
  int peer = -1;                        ///< PeerLink: the GPU the link goes to
  std::uint64_t after = kNoGpuOp;       ///< an op of any stream that must have completed first
  int collective = -1;                  ///< Collective: the call (beginCollective), shared by its GPUs' ops
  LinkKind link = LinkKind::None;       ///< EngineId::Link kernels: their overlap curve
  /// EngineId::Link kernels: the bytes they move over the host link towards the GPU
  /// and back, which share the host's side of every GPU's link with the copies
  /// (DeviceProfile::hostLinksGBps). A ManagedFault kernel's hostInBytes are the
  /// managed bytes it faults in, which its overlap with other streams depends on.
  std::uint64_t hostInBytes = 0, hostOutBytes = 0;
  /// Waited beyond the stream dependency when the op reaches its stream's head as a
  /// kernel before it ends (a prefetch the driver starts once it sees the kernel done).
  double afterKernelNs = 0;
  /// Kernels: the part of soloNs its grid's last, partial wave of blocks costs when it
  /// runs alone (DeviceProfile::modelKernelBlocksCurve). A kernel of another stream
  /// ready before that wave begins fills it with its own blocks: then it is not charged.
  double tailNs = 0;
};

/// A command and what happened to it (times in ns, < 0 = not yet).
struct GpuOpState {
  GpuCommand cmd;
  int engineSlot = 0;
  double submit = -1, ready = -1, start = -1, end = -1;
  double signal = -1;  ///< when the stream saw it complete (later than end for delayed kernel signals)
  double notBefore = 0;  ///< earliest start: its stream predecessor's signal + the dependency latency
  double remainingSoloNs = 0;
  double rateFactor = 1;
  double lastUpdate = 0;
  bool tailFilled = false;  ///< a kernel behind it took its last wave's idle SMs (fillLastWave)
  int kernelGroup = -1;
  // The model's own bookkeeping: the order of its submit event among all events, and
  // the next op in its stream's queue and in its engine's single hardware queue
  // (queues are linked through the ops, so they allocate nothing).
  std::uint64_t submitSeq = 0;
  std::uint64_t nextInStream = 0;
  std::uint64_t nextInEngineQueue = 0;
  bool done() const { return signal >= 0; }
};

class GpuModel {
 public:
  explicit GpuModel(const DeviceProfile& profile);

  /// Queues a command issued at host time `t`; returns its id (consecutive from 0).
  /// `t` must not be earlier than the previous submission's (std::logic_error).
  std::uint64_t submit(const GpuCommand& cmd, double t);
  /// Opens a collective call over `gpus` GPUs; its ops (one per GPU, GpuCommand::
  /// collective = the returned id) each start when their engine takes them and all end
  /// `soloNs` after the last one started.
  int beginCollective(int gpus);
  /// Advances the model until op `id` has signalled completion to its stream.
  /// Throws std::logic_error if it never can (a model bug, reported as a failed run).
  void runUntilDone(std::uint64_t id);
  /// Advances until every submitted op is done.
  void runAll();

  const GpuOpState& op(std::uint64_t id) const { return ops_[id - base_]; }
  std::uint64_t nextId() const { return base_ + ops_.size(); }
  /// Frees the state of ops before `id` (they must be done); keeps memory flat on long runs.
  void forgetBefore(std::uint64_t id);

 private:
  static constexpr std::uint64_t kNone = kNoGpuOp;
  /// Ops linked through one of GpuOpState's next fields, oldest first.
  struct OpQueue {
    std::uint64_t head = kNone, tail = kNone;
    bool empty() const { return head == kNone; }
  };
  struct Engine {
    bool busy = false;
    bool waiting = false;       // busy with an op that has no finish time yet (a collective not all joined)
    std::uint64_t current = 0;
    double doneAt = 0;          // while busy: when the current op finishes (at the present rates)
    std::uint64_t doneSeq = 0;  // ... and the order of that event among all events
    double lastKernelEnd = -1;
    double lastCopyEnd = -1;  // copy engines: when the last copy ended, and its stream
    int lastCopyStream = -1;
    int device = 0;
    bool link = false;  // link-bound kernels: every ready one runs at once, sharing the link
    int family = 0;     // the slot whose ops follow this one's without the dependency latency
    std::vector<std::uint64_t> ready;  // Hyper-Q: ready ops, any stream
    OpQueue fifo;                      // single queue: every op in issue order
  };
  struct KernelGroup {
    int unfinished = 0;
    std::vector<std::uint64_t> finished;
  };
  struct Collective {
    int gpus = 0;
    std::vector<std::uint64_t> joined;
    double lastJoin = 0;
    // Once every GPU has joined: its solo time still to go as of lastUpdate, at `rate`
    // (below 1 while kernels hold SMs on a member GPU and the collective yields to them).
    double remaining = 0, lastUpdate = 0, rate = 1;
  };
  struct Waiter {
    std::uint64_t on, op;
  };

  GpuOpState& mut(std::uint64_t id) { return ops_[id - base_]; }
  int engineSlot(const GpuCommand& cmd);
  void scheduleDone(int slot, double t);
  bool step();
  void onSubmit(std::uint64_t id, double t);
  void onEngineDone(int slot, double t);
  void reachStreamHead(std::uint64_t id, double t);
  void makeReady(std::uint64_t id, double t);
  void dispatch(int slot, double t);
  void startOp(int slot, std::uint64_t id, double t);
  void joinCollective(std::uint64_t id, double t);
  void signal(std::uint64_t id, double t);
  void advanceCopies(int device, double t);
  /// The host's share of each direction's rate while several GPUs copy (1 = all).
  struct HostShare {
    double h2d = 1, d2h = 1;
  };
  /// Each copy's rate: its own link's share times the host's share of its direction.
  /// With `ifChanged`, only when some copy's rate changes (rescheduling moves the
  /// order of simultaneous events, so an unchanged engine keeps its place).
  void rescheduleCopies(int device, double t, HostShare shared, bool ifChanged = false);
  bool hostLinksShared() const;
  double linkFactor(int device) const;
  /// What every GPU's copies and link kernels ask of the host's side of the links
  /// together, as each direction's share (1 while one GPU alone moves bytes).
  HostShare hostShare() const;
  /// Advance / reschedule `device`'s copies and link kernels, and every GPU's when the
  /// host's side of the links is shared (hostLinksGBps): a copy or a link kernel
  /// starting or ending on one GPU changes the others' share.
  void advanceHostTraffic(int device, double t);
  /// `linkKernel`: a link kernel started or ended on `device` (else a copy did).
  void rescheduleHostTraffic(int device, double t, bool linkKernel);
  void setComputeRate(int device, double t);
  /// Another op became ready on `slot`'s engine (or was waiting when its kernel
  /// started): the running kernel's last wave (GpuCommand::tailNs) is no longer charged.
  void fillLastWave(int slot, double t);
  /// The compute kernel's rate on `device`: slowed beside a collective, and by the SMs
  /// the link kernels running there keep (DeviceProfile::linkKernelSmWeight).
  double computeRate(int device) const;
  /// The compute kernels' worth of SMs the link kernels running on `device` keep: w x n.
  double linkHeldSms(int device) const;
  /// The share of the SMs the link kernels of `device` have together beside a compute
  /// kernel (1 while none runs, or without linkKernelSmWeight).
  double linkSmShare(int device) const;
  /// A compute kernel started or ended on `device`: its link kernels' SM share moved.
  void retimeLinkKernelsBesideCompute(int device, double t);
  /// A kernel's rate while a collective runs on its GPU: 1 - share x (1 - yield).
  double kernelRateBesideCollective() const;
  /// The collective running on `device` (all joined) re-timed at `t`: its progress so
  /// far at the old rate, then the rate its GPUs' kernels leave it (collectiveYieldShare).
  void retimeCollectiveOn(int device, double t);
  bool kernelRunningOn(int device) const;
  /// The slot of `device`'s engine of `kind` (not a peer link), -1 before its first op.
  int existingSlot(EngineId kind, int device) const;
  /// The link slot of `device` (-1 before its first link kernel).
  int linkSlot(int device) const;
  /// Each running link kernel's rate alone: speedup(n) / n of the streams curve.
  double linkStreamsRate(int device) const;
  void advanceLinkKernels(int device, double t);
  void rescheduleLinkKernels(int device, double t, HostShare shared, bool ifChanged = false);

  DeviceProfile profile_;
  bool singleQueue_;
  RingBuffer<GpuOpState> ops_;  // ids base_ .. nextId()-1
  std::uint64_t base_ = 0;
  std::uint64_t nextSubmit_ = 0;  // first op whose submit event has not happened
  double lastSubmitT_ = 0;
  std::uint64_t seq_ = 0;         // events created so far
  int devicesUsed_ = 1;           // GPUs 0..devicesUsed_-1 have had commands (the per-GPU loops stop there)
  std::vector<Engine> engines_;   // device 0's three engines first; the others as first used
  std::vector<std::int16_t> slotOf_;  // (engine kind, device, peer) -> index in engines_, -1 = none yet
  std::vector<OpQueue> streams_;  // per stream: submitted, not yet signalled (nextInStream)
  std::array<std::vector<std::uint64_t>, kMaxModelGpus> transferring_;  // per GPU: host-link copies moving bytes
  std::array<std::vector<std::uint64_t>, kMaxModelGpus> linkRunning_;   // per GPU: link kernels running side by side
  std::array<int, kMaxModelGpus> collectivesRunning_{};                  // per GPU: collective ops on its SMs
  std::array<int, kMaxModelGpus> movingCollective_ = filledMinusOne();   // per GPU: the call moving data, -1 none
  static std::array<int, kMaxModelGpus> filledMinusOne() {
    std::array<int, kMaxModelGpus> a{};
    a.fill(-1);
    return a;
  }
  std::vector<Waiter> waiters_;   // ops at their stream's head waiting for an op of another stream
  std::deque<KernelGroup> groups_;
  int groupBase_ = 0;
  int openGroup_ = -1;
  std::deque<Collective> collectives_;
  int collectiveBase_ = 0;
};

}  // namespace pipescope
