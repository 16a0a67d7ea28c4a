#pragma once
// Resources of the CUDA pipeline: what each stream owns (stream, device buffers,
// cuBLAS handle), what each batch in flight owns on the host (input and output
// buffers, the event that says it is done), the GEMM weights, the memory check
// before allocating, and the cache that carries them from one run to the next.
//
// Host buffers are double-buffered: two host slots per stream, so the host prepares
// the next round of batches (and postprocesses the previous one) while the GPU runs
// the current round; batch b uses stream b % streams and host slot b % (2·streams).
// Device buffers need no second copy: every batch of a stream uses them in stream order.
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/Backend.h"
#include "config/ModelWork.h"  // gemmShape: the simulator mirrors the same layers
#include "cuda/CudaResources.h"

namespace pipescope::cuda {

/// cuBLAS presets: the batch seen as rows of `width` features through `layers` square GEMMs.

bool isManaged(HostMemory m);

/// Streams of a configuration (blocking mode: the legacy default stream only).
int streamCount(const PipelineConfig& c);
/// Host slots of a configuration (PipelineConfig::hostSlots: two per stream, one in blocking mode).
int hostSlotCount(const PipelineConfig& c);

/// What one stream owns.
struct StreamSlot {
  Stream stream;  // empty in blocking mode: the legacy default stream
  DeviceBuffer devIn, devOut, devScratch;
  CublasHandle blas;
  bool residentLoaded = false;  // keep-resident: this stream's input is on the device
  // Whether the handle's first GEMM and the stream's first copies ran: each costs far
  // more the first time (PipelineResources::warmUpGemms, warmUpCopies).
  bool gemmWarm = false, copiesWarm = false;
  cudaStream_t handle() const { return stream.get(); }
};

/// What one batch in flight owns on the host.
struct HostSlot {
  HostBuffer in, out;
  Event done;                     // recorded after the batch's last GPU op (async mode)
  std::int32_t batch = kNoBatch;  // batch in flight, kNoBatch when free
  int stream = 0;                 // the stream it runs on
  bool complete = false;          // all of its GPU work was issued (not stopped midway)
  nvtxRangeId_t range = 0;
};

/// Buffers one run leaves to the next of the same backend while a sweep is under way.
/// The sweep runs the largest batch of each memory/model block first, so the buffers
/// fit every later point of the block and pinning (417 ms per GiB on an H200) happens once.
struct BufferCache {
  bool valid = false;
  HostMemory memory = HostMemory::Pinned;
  bool async = true;
  ModelPreset model = ModelPreset::Custom;
  std::vector<StreamSlot> streams;
  std::vector<HostSlot> hosts;
  DeviceBuffer weights;

  BufferCache() = default;
  BufferCache(const BufferCache&) = delete;
  BufferCache& operator=(const BufferCache&) = delete;
  ~BufferCache();
  void clear();  ///< waits for the device to be idle, then frees everything
};

/// The slots and weights one run uses. Allocates what a configuration needs (after a
/// memory check that says what to change when it does not fit) and reallocates only
/// when something that decides allocation changes.
class PipelineResources {
 public:
  PipelineResources(const DeviceInfo& info, BufferCache* cache) : info_(info), cache_(cache) {}

  /// A pipeline stage other than the last owns no host slots: the batch's host buffers
  /// and done event belong to the GPU that finishes it. Call before prepare().
  void setOwnsHostSlots(bool owns) { ownsHosts_ = owns; }

  /// Takes the cached buffers when they fit `c` (the run's first configuration).
  void adoptCached(const PipelineConfig& c);
  /// Makes the slots fit `c`.
  void prepare(const PipelineConfig& c);
  /// One small copy each way on every stream not yet warm, from `host`'s buffers, and
  /// waits for them: a stream's first cudaMemcpyAsync costs 0.4-0.5 ms on the host
  /// (H200; later ones 9-18 us), which would delay the run's first batch.
  void warmUpCopies(const PipelineConfig& c, const HostSlot& host);
  /// After a run that ended normally: the slots go back to the cache.
  void returnToCache(const PipelineConfig& c);

  std::vector<StreamSlot>& streams() { return streams_; }
  std::vector<HostSlot>& hosts() { return hosts_; }
  const float* weights() const { return static_cast<const float*>(weights_.get()); }

 private:
  /// The part of a configuration that decides what is allocated.
  struct AllocKey {
    HostMemory memory;
    bool async;  // async runs own streams and two host slots per stream
    int streams;
    std::uint64_t in, out;
    ModelPreset model;
    bool operator==(const AllocKey&) const = default;
  };
  static AllocKey allocKey(const PipelineConfig& c);
  static bool streamSlotFits(const StreamSlot& s, const PipelineConfig& c);
  static bool hostSlotFits(const HostSlot& s, const PipelineConfig& c);

  int hostSlots(const PipelineConfig& c) const { return ownsHosts_ ? hostSlotCount(c) : 0; }
  void checkMemory(const PipelineConfig& c) const;
  void allocate(const PipelineConfig& c);
  static void allocateStream(StreamSlot& s, const PipelineConfig& c);
  static void allocateHost(HostSlot& s, const PipelineConfig& c);
  void allocateWeights(const PipelineConfig& c);
  void warmUpGemms(const PipelineConfig& c);

  DeviceInfo info_;
  BufferCache* cache_ = nullptr;
  bool ownsHosts_ = true;
  bool allocated_ = false;
  AllocKey allocatedKey_{};
  std::vector<StreamSlot> streams_;
  std::vector<HostSlot> hosts_;
  DeviceBuffer weights_;
};

}  // namespace pipescope::cuda
