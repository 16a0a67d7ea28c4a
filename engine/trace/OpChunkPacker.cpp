#include "trace/OpChunkPacker.h"

#include <algorithm>
#include <limits>

namespace pipescope {

namespace {

constexpr std::uint64_t kU32 = std::uint64_t(1) << 32;

/// a - b as the exact non-negative difference when it fits 32 bits.
bool difference32(std::int64_t a, std::int64_t b, std::uint32_t& out) {
  if (a < b) return false;
  const std::uint64_t d = std::uint64_t(a) - std::uint64_t(b);  // exact for a >= b
  if (d >= kU32) return false;
  out = std::uint32_t(d);
  return true;
}

std::size_t hashOf(const OpShape& s) {
  const std::uint64_t ids = std::uint64_t(s.lane) | std::uint64_t(s.engineLane) << 16 |
                            std::uint64_t(s.name) << 32 | std::uint64_t(std::uint16_t(s.stream)) << 48;
  std::uint64_t h = ids * 0x9E3779B97F4A7C15ull;
  h ^= (s.bytes + (std::uint64_t(s.kind) << 8 | s.flags)) * 0xC2B2AE3D27D4EB4Full;
  return std::size_t(h ^ (h >> 29));
}

}  // namespace

std::uint16_t OpChunkPacker::shapeOf(const Op& op) {
  const OpShape s{op.bytes, op.lane, op.engineLane, op.name, op.stream, op.kind, op.flags};
  for (std::size_t i = hashOf(s) % kSlots;; i = (i + 1) % kSlots) {
    const std::uint16_t at = slots_[i];
    if (at == 0) {
      shapes_.push_back(s);
      slots_[i] = std::uint16_t(shapes_.size());
      return std::uint16_t(shapes_.size() - 1);
    }
    if (shapes_[at - 1u] == s) return std::uint16_t(at - 1u);
  }
}

std::shared_ptr<const PackedOpChunk> OpChunkPacker::pack(const Op* ops) {
  constexpr std::size_t n = PackedOpChunk::kOps;
  static_assert(n < PackedOp::kWhole, "shape indices and kWhole must not meet");
  std::shared_ptr<PackedOpChunk> chunk = allocator_.allocate();
  std::int64_t startBase = std::numeric_limits<std::int64_t>::max();
  std::int32_t batchBase = std::numeric_limits<std::int32_t>::max();
  for (std::size_t i = 0; i < n; ++i) {
    startBase = std::min(startBase, ops[i].start);
    if (ops[i].batch != kNoBatch) batchBase = std::min(batchBase, ops[i].batch);
  }
  chunk->startBase_ = startBase;
  chunk->batchBase_ = batchBase;
  shapes_.clear();
  slots_.fill(0);
  for (std::size_t i = 0; i < n; ++i) {
    const Op& op = ops[i];
    PackedOp& r = chunk->records_[i];
    r.correlation = op.correlation;
    std::uint32_t batch = PackedOp::kNoBatch;
    const bool batchFits =
        op.batch == kNoBatch || (difference32(op.batch, batchBase, batch) && batch < PackedOp::kNoBatch);
    if (batchFits && difference32(op.start, startBase, r.start) && difference32(op.end, op.start, r.duration) &&
        difference32(op.start, op.ready, r.engineWait) && difference32(op.ready, op.submit, r.streamWait)) {
      r.batch = std::uint16_t(batch);
      r.shape = shapeOf(op);
      continue;
    }
    r.shape = PackedOp::kWhole;
    r.start = std::uint32_t(chunk->whole_.size());
    chunk->whole_.push_back(op);
  }
  chunk->whole_.shrink_to_fit();
  chunk->shapes_.assign(shapes_.begin(), shapes_.end());
  return chunk;
}

}  // namespace pipescope
