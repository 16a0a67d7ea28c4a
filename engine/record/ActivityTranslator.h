#pragma once
// Turns the activity records of one process into wire messages (WireFormat.h), in
// the trace's vocabulary: a lane per CUDA stream, the copy and compute engines of each
// device, and per host thread its runtime API calls, its driver API calls and its NVTX
// ranges (one lane per nesting level, so no two ranges of a lane overlap).
//
// CUPTI delivers records in buffers, in no fixed order across kinds: a kernel's record
// may come before the record of the cudaLaunchKernel that started it, in the same
// flush or the next. So the translator works in rounds (one flush each): a GPU op
// waits, with every later op of its stream, until the API call that launched it is
// known (its start is the op's submit time) or two rounds have passed; API calls go out
// at the end of their round, once the copies and synchronisation records that say the
// host waited in them (a blocking or pageable copy, a stream synchronise) are in (a
// copy call whose copy is not in yet waits one more round for it); a
// driver call nested in a runtime call (same correlation id) is dropped, the runtime
// call stands for both. A GPU op's ready time is the later of its submit time and the
// end of the previous op of its stream.
//
// Used inside the injection library: it depends on nothing of the engine but the
// op and lane enumerations.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "record/ActivityRecords.h"
#include "record/WireEncoder.h"

namespace pipescope::record {

class ActivityTranslator {
 public:
  struct Options {
    std::int64_t pid = 0;     ///< the process: its main thread is the one whose tid is the pid
    std::string processName;  ///< threads that kept this name are called by their tid
    int onlyDevice = -1;      ///< >= 0: GPU work of other devices is left out
  };
  static constexpr int kHoldRounds = 2;  ///< rounds a GPU op waits for its launching call
  static constexpr int kMaxNvtxLevels = 16;

  explicit ActivityTranslator(Options options) : options_(std::move(options)) {}

  void device(const DeviceRecord& d);
  void threadSighting(const ThreadSighting& t);
  /// CUPTI's thread id is the system's (`tid`), and the thread is called `name`.
  void threadNamed(std::uint32_t threadId, std::int64_t tid, const std::string& name);
  void api(const ApiRecord& r);
  void gpu(const GpuRecord& r);
  void sync(const SyncRecord& r);
  void marker(const MarkerRecord& r);

  /// The records of one flush are in: what can be resolved goes to `out` (lane and name
  /// declarations first, then the ops).
  void endRound(wire::Encoder& out);
  /// The process is ending: everything still held goes out (unresolved GPU ops with
  /// their start as submit time, NVTX ranges still open ending at the last time seen).
  void finish(wire::Encoder& out);

  std::uint64_t opsSent() const { return opsSent_; }
  std::uint64_t gpuOpsLeftOut() const { return leftOut_; }

 private:
  struct Thread {
    std::string name;
    int ordinal = 0;
    std::uint32_t runtimeLane = wire::kWireNone, driverLane = wire::kWireNone;
    std::vector<std::uint32_t> nvtxLanes;
    std::vector<bool> levelBusy;
  };
  struct StreamKey {
    std::uint32_t context, stream;
    bool operator<(const StreamKey& o) const { return context != o.context ? context < o.context : stream < o.stream; }
  };
  struct Stream {
    std::uint32_t lane = wire::kWireNone;
    std::int32_t number = 0;
    std::uint32_t device = 0;
    std::int64_t prevEnd = INT64_MIN;
    struct Waiting {
      wire::Op op;
      int round;
    };
    std::deque<Waiting> waiting;
  };
  struct Engines {
    std::uint32_t h2d = wire::kWireNone, d2h = wire::kWireNone, compute = wire::kWireNone;
  };
  struct HeldApi {
    wire::Op op;
    bool driver;
    std::uint32_t threadId;
    int round;
    bool copyCall;  ///< its copy's record says whether the host waited in it
  };
  struct OpenRange {
    std::int64_t start;
    std::uint32_t threadId;
    int level;
    std::uint32_t name;
  };

  Thread& thread(std::uint32_t threadId);
  void nameThread(Thread& t, std::int64_t tid, const std::string& name) const;
  std::uint32_t apiLane(std::uint32_t threadId, bool driver);
  std::uint32_t nvtxLane(Thread& t, int level);
  Stream& stream(std::uint32_t device, std::uint32_t context, std::uint32_t streamId);
  Engines& engines(std::uint32_t device);
  std::uint32_t declareLane(std::uint8_t kind, std::int32_t index, std::int32_t device, std::string name);
  std::uint32_t nameId(const std::string& text);
  void rememberApi(std::uint32_t correlation, std::int64_t start);
  void emitReadyGpu(bool all);
  void emitHeldApi(bool all);
  void seeTime(std::int64_t t) { lastTime_ = std::max(lastTime_, t); }

  Options options_;
  int round_ = 0;
  std::uint32_t nextLane_ = 0;
  std::uint32_t nextName_ = 1;
  std::unordered_map<std::string, std::uint32_t> names_;
  std::unordered_map<std::uint32_t, Thread> threads_;
  std::unordered_map<std::uint32_t, ThreadSighting> sightings_;  // correlation -> thread
  std::map<StreamKey, Stream> streams_;
  std::map<std::int32_t, bool> streamNumbers_;
  std::map<std::uint32_t, Engines> engines_;
  std::map<std::uint32_t, bool> devicesSent_;
  // Launching calls by correlation id (their start), kept for later GPU records; the
  // oldest go once there are many (a record that late is given up on anyway).
  std::unordered_map<std::uint32_t, std::int64_t> apiStart_;
  std::deque<std::uint32_t> apiOrder_;
  std::unordered_map<std::uint32_t, bool> runtimeCorrelations_;  // for dropping nested driver calls
  std::deque<std::uint32_t> runtimeOrder_;
  std::vector<HeldApi> heldApi_;
  std::unordered_map<std::uint32_t, std::uint8_t> hostWaitedFor_;  // correlation -> flags of a copy that blocked
  std::unordered_map<std::uint32_t, std::int32_t> syncedStream_;   // correlation -> stream number (-1: unknown)
  std::unordered_map<std::uint32_t, std::uint8_t> hostWaitedBefore_;  // the same, from the round before
  std::unordered_map<std::uint32_t, std::int32_t> syncedBefore_;
  std::unordered_map<std::uint32_t, bool> gpuSeen_, gpuSeenBefore_;  // correlations of GPU records, by round
  std::unordered_map<std::uint32_t, OpenRange> openRanges_;
  wire::Encoder declarations_;
  std::vector<wire::Op> ready_;
  std::int64_t lastTime_ = INT64_MIN;
  std::uint64_t opsSent_ = 0;
  std::uint64_t leftOut_ = 0;
};

/// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": CUPTI's callback names carry the
/// version of the entry point.
std::string apiDisplayName(const std::string& cuptiName);

}  // namespace pipescope::record
