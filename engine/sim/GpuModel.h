#pragma once
// The device side of the simulator: in-order streams feeding hardware engines,
// driven by a time-ordered event queue. The host side (SimulatedPipeline) submits
// commands at its own clock and asks for the time a command completed; the model
// only ever advances as far as the host needs, so later submissions always lie in
// its future.
#include <cstdint>
#include <deque>
#include <queue>
#include <vector>

#include "sim/DeviceProfile.h"
#include "trace/Op.h"

namespace pipescope {

enum class EngineId : std::uint8_t { H2D = 0, D2H = 1, Compute = 2 };

/// A command as the host issues it.
struct GpuCommand {
  OpKind kind = OpKind::Kernel;
  int stream = 0;
  EngineId engine = EngineId::Compute;  ///< mapped onto the shared copy engine on one-engine devices
  double soloNs = 0;                    ///< engine time when nothing else competes
  double gbps = 0;                      ///< copies: own bandwidth, for sharing the bidirectional cap
};

/// A command and what happened to it (times in ns, < 0 = not yet).
struct GpuOpState {
  GpuCommand cmd;
  int engineSlot = 0;
  double submit = -1, ready = -1, start = -1, end = -1;
  double signal = -1;  ///< when the stream saw it complete (later than end for delayed kernel signals)
  double remainingSoloNs = 0;
  double rateFactor = 1;
  double lastUpdate = 0;
  int kernelGroup = -1;
  bool done() const { return signal >= 0; }
};

class GpuModel {
 public:
  explicit GpuModel(const DeviceProfile& profile);

  /// Queues a command issued at host time `t`; returns its id (consecutive from 0).
  std::uint64_t submit(const GpuCommand& cmd, double t);
  /// Advances the model until op `id` has signalled completion to its stream.
  /// Throws std::logic_error if it never can (a model bug, reported as a failed run).
  void runUntilDone(std::uint64_t id);
  /// Advances until every submitted op is done.
  void runAll();

  const GpuOpState& op(std::uint64_t id) const { return ops_[id - base_]; }
  std::uint64_t nextId() const { return base_ + ops_.size(); }
  /// Frees the state of ops before `id` (they must be done); keeps memory flat on long runs.
  void forgetBefore(std::uint64_t id);
  /// 1 engine slot for both copy directions on one-copy-engine devices, else 2.
  int engineSlot(EngineId e) const;

 private:
  enum class EventType : std::uint8_t { Submit, EngineDone };
  struct Event {
    double t;
    std::uint64_t seq;
    EventType type;
    std::uint64_t arg;
    std::uint32_t version;
    bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  struct Engine {
    bool busy = false;
    std::uint64_t current = 0;
    std::uint32_t version = 0;
    double lastKernelEnd = -1;
    std::vector<std::uint64_t> ready;  // Hyper-Q: ready ops, any stream
    std::deque<std::uint64_t> fifo;    // single queue: every op in issue order
  };
  struct KernelGroup {
    int unfinished = 0;
    std::vector<std::uint64_t> finished;
  };

  GpuOpState& mut(std::uint64_t id) { return ops_[id - base_]; }
  void push(double t, EventType type, std::uint64_t arg, std::uint32_t version = 0);
  bool step();
  void onSubmit(std::uint64_t id, double t);
  void onEngineDone(int slot, std::uint32_t version, double t);
  void makeReady(std::uint64_t id, double t);
  void dispatch(int slot, double t);
  void startOp(int slot, std::uint64_t id, double t);
  void signal(std::uint64_t id, double t);
  void advanceCopies(double t);
  void rescheduleCopies(double t);

  DeviceProfile profile_;
  bool singleQueue_;
  std::deque<GpuOpState> ops_;
  std::uint64_t base_ = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  std::uint64_t seq_ = 0;
  std::vector<Engine> engines_;
  std::vector<std::deque<std::uint64_t>> streams_;  // submitted, not yet signalled
  std::vector<std::uint64_t> transferring_;          // copies now moving bytes
  std::deque<KernelGroup> groups_;
  int groupBase_ = 0;
  int openGroup_ = -1;
};

}  // namespace pipescope
