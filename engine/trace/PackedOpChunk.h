#pragma once
// A full TraceStore chunk in its compact form, about 24 bytes per op instead of the
// 64 of an Op. A chunk's ops lie close in time and repeat a few combinations of lane,
// engine lane, name, stream, kind, flags and bytes (a lane's ops are much alike), so
// each op keeps its times as 32-bit offsets from the chunk's earliest start, its batch
// as a 16-bit offset, and the rest as an index into the chunk's own table of shapes.
// An op that does not fit (an offset past 32 bits: an op or a wait longer than about
// 4.3 s, a chunk spanning more; end before start; a batch far from the others) is kept
// whole beside the records: packing never loses or changes a value.
//
// Immutable once made (OpChunkPacker), so any number of readers decode it at once.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "trace/Op.h"
#include "trace/OpChunk.h"

namespace pipescope {

/// What many ops of a chunk share; stored once per chunk and distinct combination.
struct OpShape {
  std::uint64_t bytes = 0;
  std::uint16_t lane = kNoLane;
  std::uint16_t engineLane = kNoLane;
  std::uint16_t name = 0;
  std::int16_t stream = kNoStream;
  OpKind kind = OpKind::Kernel;
  std::uint8_t flags = 0;
  bool operator==(const OpShape&) const = default;
};

/// One op of a packed chunk.
struct PackedOp {
  static constexpr std::uint16_t kWhole = 0xFFFF;    ///< shape of an op kept whole
  static constexpr std::uint16_t kNoBatch = 0xFFFF;  ///< batch of an op with batch == kNoBatch
  std::uint32_t start;       ///< start - chunk's start base; for an op kept whole: its index in whole
  std::uint32_t duration;    ///< end - start
  std::uint32_t engineWait;  ///< start - ready
  std::uint32_t streamWait;  ///< ready - submit
  std::uint32_t correlation;
  std::uint16_t batch;       ///< batch - chunk's batch base
  std::uint16_t shape;       ///< index into shapes
};
static_assert(sizeof(PackedOp) == 24);

class PackedOpChunk {
 public:
  static constexpr std::size_t kOps = OpChunk::kOps;

  PackedOpChunk() {}  // records are written by OpChunkPacker before anyone reads them

  Op op(std::size_t slot) const {
    const PackedOp& r = records_[slot];
    if (r.shape == PackedOp::kWhole) [[unlikely]]
      return whole_[r.start];
    const OpShape& s = shapes_[r.shape];
    // Unsigned arithmetic: the packer checked that each value is exactly recovered.
    const std::uint64_t start = std::uint64_t(startBase_) + r.start;
    const std::uint64_t ready = start - r.engineWait;
    Op op;
    op.start = std::int64_t(start);
    op.end = std::int64_t(start + r.duration);
    op.ready = std::int64_t(ready);
    op.submit = std::int64_t(ready - r.streamWait);
    op.bytes = s.bytes;
    op.batch = r.batch == PackedOp::kNoBatch ? kNoBatch : std::int32_t(std::uint32_t(batchBase_) + r.batch);
    op.correlation = r.correlation;
    op.lane = s.lane;
    op.engineLane = s.engineLane;
    op.name = s.name;
    op.stream = s.stream;
    op.kind = s.kind;
    op.flags = s.flags;
    return op;
  }

  std::size_t shapeCount() const { return shapes_.size(); }
  std::size_t wholeCount() const { return whole_.size(); }
  /// Bytes this chunk holds (its records and tables).
  std::size_t memoryBytes() const {
    return sizeof(*this) + shapes_.capacity() * sizeof(OpShape) + whole_.capacity() * sizeof(Op);
  }

 private:
  friend class OpChunkPacker;
  std::int64_t startBase_ = 0;
  std::int32_t batchBase_ = 0;
  std::vector<OpShape> shapes_;
  std::vector<Op> whole_;
  PackedOp records_[kOps];  // left unset by the constructor: the packer writes each one
};

}  // namespace pipescope
