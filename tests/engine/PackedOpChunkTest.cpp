// Packed chunks (about 24 bytes per op) give back exactly the ops they were made from,
// including ops that do not fit the compact record; and a trace store holds its full
// chunks packed, also while a reader is looking at them.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "config/Presets.h"
#include "sim/DeviceProfile.h"
#include "sim/SimulatorBackend.h"
#include "trace/OpChunkPacker.h"
#include "trace/Trace.h"

namespace pipescope {
namespace {

constexpr std::size_t kN = PackedOpChunk::kOps;
constexpr std::int64_t kSecond = 1'000'000'000;

// Ops like a pipeline's: close in time, a few lanes and names, waits of microseconds.
std::vector<Op> regularOps(std::int64_t t0) {
  std::vector<Op> ops(kN);
  std::int64_t t = t0;
  for (std::size_t i = 0; i < kN; ++i) {
    Op& op = ops[i];
    op.kind = OpKind(i % 5);
    op.lane = std::uint16_t(i % 7);
    op.engineLane = i % 2 ? std::uint16_t(7 + i % 3) : kNoLane;
    op.stream = std::int16_t(i % 4);
    op.name = std::uint16_t(i % 3);
    op.bytes = i % 5 == 1 ? 19'267'584 : 0;
    op.flags = std::uint8_t(i % 2 ? kOpPageable : 0);
    op.batch = i % 11 == 0 ? kNoBatch : std::int32_t(1000 + i / 10);
    op.correlation = std::uint32_t(i % 13 == 0 ? 0 : 4'000'000'000u + i);
    op.submit = t;
    op.ready = t + std::int64_t(i % 17) * 1000;
    op.start = op.ready + std::int64_t(i % 5) * 333;
    op.end = op.start + 2000 + std::int64_t(i % 9) * 100;
    t += 700;
  }
  return ops;
}

void expectSameOps(const PackedOpChunk& packed, const std::vector<Op>& ops) {
  for (std::size_t i = 0; i < kN; ++i) ASSERT_EQ(packed.op(i), ops[i]) << "op " << i;
}

TEST(PackedOpChunk, RegularOpsPackIntoTwentyFourBytesAndComeBackExactly) {
  const auto ops = regularOps(5 * kSecond);
  OpChunkPacker packer;
  const auto packed = packer.pack(ops.data());
  expectSameOps(*packed, ops);
  EXPECT_EQ(packed->wholeCount(), 0u);
  EXPECT_EQ(packed->shapeCount(), 420u);  // lcm of the fields' periods: each combination once
  EXPECT_EQ(packed->memoryBytes(), sizeof(PackedOpChunk) + 420 * sizeof(OpShape));
  EXPECT_LE(sizeof(PackedOpChunk), kN * sizeof(PackedOp) + 128);
}

TEST(PackedOpChunk, OpsThatDoNotFitAreKeptWholeAndTheOthersStayPacked) {
  auto ops = regularOps(-3 * kSecond);  // negative times are times too
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  ops[1].end = ops[1].start + 5 * kSecond;                   // longer than 32 bits of ns
  ops[100].ready = ops[100].start - 5 * kSecond;             // waited longer
  ops[101].submit = ops[101].ready + 1;                      // submitted after it was ready
  ops[2000].end = ops[2000].start - 1;                       // ends before it starts
  ops[2001].start = ops[2001].end = ops[2001].ready = ops[2001].submit = kMax;  // far from the others
  ops[2002].submit = ops[2002].ready = ops[2002].start = kMin;
  ops[4000].batch = std::numeric_limits<std::int32_t>::max();  // far from the chunk's batches
  ops[4095].bytes = std::numeric_limits<std::uint64_t>::max();  // fits: bytes are in the shape
  ops[4095].correlation = std::numeric_limits<std::uint32_t>::max();
  OpChunkPacker packer;
  const auto packed = packer.pack(ops.data());
  expectSameOps(*packed, ops);
  // The op at kMin is the chunk's start base, out of 32-bit reach of all the others.
  EXPECT_GT(packed->wholeCount(), kN / 2);

  // Without the op at kMin, only the misfits are kept whole.
  ops[2002] = ops[2003];
  const auto again = packer.pack(ops.data());
  expectSameOps(*again, ops);
  EXPECT_EQ(again->wholeCount(), 6u);
}

TEST(PackedOpChunk, RandomOpsComeBackExactly) {
  std::mt19937_64 rng(3);
  std::vector<Op> ops(kN);
  for (Op& op : ops) {
    // Mostly near each other, some anywhere in the 64-bit range.
    const bool wild = rng() % 8 == 0;
    op.start = wild ? std::int64_t(rng()) : std::int64_t(rng() % (10 * kSecond));
    op.end = wild ? std::int64_t(rng()) : op.start + std::int64_t(rng() % 100'000);
    op.ready = op.start - std::int64_t(rng() % 1000);
    op.submit = op.ready - std::int64_t(rng() % 1000);
    op.bytes = rng();
    op.batch = std::int32_t(rng() % 3 == 0 ? std::uint32_t(rng()) : std::uint32_t(rng() % 300));
    op.correlation = std::uint32_t(rng());
    op.lane = std::uint16_t(rng());
    op.engineLane = std::uint16_t(rng());
    op.name = std::uint16_t(rng());
    op.stream = std::int16_t(rng());
    op.kind = OpKind(rng() % 16);  // room for kinds added later
    op.flags = std::uint8_t(rng());
  }
  OpChunkPacker packer;
  expectSameOps(*packer.pack(ops.data()), ops);
}

TEST(PackedOpChunk, ASimulatedTraceCostsUnderTwentyFiveBytesPerOp) {
  PipelineConfig c = findPreset("multi-stream")->config;
  c.batchCount = 10'000;
  Trace trace;
  trace.setConfig(c);
  RunControl control;
  makeSimulatorBackend(*builtinProfile("h200"))->run(c, trace, control);
  const TraceView v = trace.ops().snapshot();
  ASSERT_GT(v.size(), 20 * TraceStore::kChunkOps);
  // Counted over the packed chunks only: the chunk being filled holds whole ops.
  const std::size_t packedOps = v.size() / TraceStore::kChunkOps * TraceStore::kChunkOps;
  const double perOp = double(trace.ops().memoryBytes() - sizeof(OpChunk) - sizeof(TraceStore)) / double(packedOps);
  EXPECT_LE(perOp, 25.0);
  EXPECT_GE(perOp, double(sizeof(PackedOp)));
}

// Every op a reader can see is the op that was written, while the writer packs full
// chunks and swaps them in (ThreadSanitizer runs this in CI).
TEST(PackedOpChunk, ReadersSeeTheSameOpsBeforeAndAfterTheirChunkIsPacked) {
  TraceStore store;
  const auto opAt = [](std::uint64_t i) {
    Op op;
    op.start = op.ready = op.submit = std::int64_t(i * 100);
    op.end = op.start + 50;
    op.batch = std::int32_t(i / 10);
    op.lane = std::uint16_t(i % 9);
    op.correlation = std::uint32_t(i);
    return op;
  };
  const std::uint64_t n = 12 * TraceStore::kChunkOps + 100;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (std::uint64_t i = 0; i < n; ++i) {
      store.append(opAt(i));
      if (i % 61 == 0) store.publish();
    }
    store.publish();
    done = true;
  });
  std::uint64_t mismatches = 0, looks = 0;
  while (!done.load()) {
    const TraceView v = store.snapshot();
    // The newest ops (in the chunk being filled or just packed) and a sample of older ones.
    for (std::uint64_t i = v.end() > 300 ? v.end() - 300 : 0; i < v.end(); ++i, ++looks)
      mismatches += v.at(i) != opAt(i);
    for (std::uint64_t i = 0; i < v.end(); i += 997, ++looks) mismatches += v.at(i) != opAt(i);
  }
  writer.join();
  const TraceView all = store.snapshot();
  ASSERT_EQ(all.size(), n);
  for (std::uint64_t i = 0; i < n; ++i) mismatches += all.at(i) != opAt(i);
  EXPECT_EQ(mismatches, 0u) << "after " << looks << " looks";
}

}  // namespace
}  // namespace pipescope
