// Streaming a trace to a native version 2 file while it grows (TraceStreamWriter),
// and reading back files cut off at any byte (issue 16): everything up to the last
// complete chunk loads, the reader says how much it recovered, and a bounded live
// window still keeps memory bounded while the file holds every op.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "TraceFileTestSupport.h"
#include "io/NativeCodec.h"
#include "io/NativeFormat.h"
#include "io/TraceAssembler.h"
#include "io/TraceFileError.h"
#include "io/TraceMetadataJson.h"
#include "io/TraceStreamWriter.h"

namespace pipescope {
namespace {

using filetest::readText;
using filetest::ScratchDir;

/// A trace with `source`'s metadata and no ops yet.
std::shared_ptr<Trace> emptyCopy(const Trace& source, std::uint64_t maxOps = 0) {
  auto t = std::make_shared<Trace>(maxOps);
  applyRunInfo(*t, source.configHistory(), source.device(), RunOutcome{RunState::Running, {}}, 0);
  TraceAssembler(source.device().name, t).declareTables(TraceTables{source.lanes(), source.names()});
  return t;
}

struct Streamed {
  std::string bytes;
  std::vector<std::uint64_t> chunkEnds;  // file size after each chunk
  std::vector<std::uint64_t> opsAfter;   // ops written after each chunk
};

/// Streams `source`'s ops into `path` in `pieces` chunks, then finishes.
Streamed streamInPieces(const Trace& source, const std::string& path, int pieces) {
  auto trace = emptyCopy(source);
  TraceStreamWriter::Options o;
  o.background = false;
  Streamed s;
  TraceStreamWriter w(trace, path, o);
  s.chunkEnds.push_back(std::filesystem::file_size(path));
  s.opsAfter.push_back(0);
  const TraceView ops = source.ops().snapshot();
  for (int p = 0; p < pieces; ++p) {
    const std::uint64_t from = ops.size() * std::uint64_t(p) / std::uint64_t(pieces);
    const std::uint64_t to = ops.size() * std::uint64_t(p + 1) / std::uint64_t(pieces);
    for (std::uint64_t i = from; i < to; ++i) trace->ops().append(ops[i]);
    trace->ops().publish();
    trace->setCompletedBatches(p + 1);
    w.writeChunk();
    s.chunkEnds.push_back(std::filesystem::file_size(path));
    s.opsAfter.push_back(w.opsWritten());
  }
  trace->setOutcome(source.outcome());
  trace->setCompletedBatches(source.completedBatches());
  w.finish();
  s.bytes = readText(path);
  s.chunkEnds.push_back(s.bytes.size() - 4);  // the final chunk, before the end marker
  s.opsAfter.push_back(w.opsWritten());
  return s;
}

TEST(TraceStream, FinishedStreamLoadsAsTheWholeTrace) {
  ScratchDir dir;
  const auto source = filetest::makeSimTrace(20);
  const Streamed s = streamInPieces(*source, dir.file("run.pipescope"), 5);
  NativeReadInfo info;
  const auto loaded = loadNativeTrace(dir.file("run.pipescope"), {}, &info);
  EXPECT_TRUE(info.complete);
  EXPECT_EQ(info.version, kNativeVersion);
  EXPECT_EQ(info.chunks, 7u);  // the first (empty) chunk, 5 pieces, the final one
  filetest::expectSameTrace(*source, *loaded);
}

TEST(TraceStream, FileCutAtAnyByteOpensUpToItsLastCompleteChunk) {
  ScratchDir dir;
  const auto source = filetest::makeSimTrace(30);
  const Streamed s = streamInPieces(*source, dir.file("full.pipescope"), 6);
  std::vector<std::uint64_t> cuts{0, 10, 23, s.chunkEnds[0] - 1, s.bytes.size() - 1, s.bytes.size() - 4};
  for (std::uint64_t e : s.chunkEnds) cuts.push_back(e);
  std::mt19937_64 rng(16);
  for (int i = 0; i < 60; ++i) cuts.push_back(rng() % s.bytes.size());
  const TraceView all = source->ops().snapshot();
  for (std::uint64_t cut : cuts) {
    SCOPED_TRACE("cut at byte " + std::to_string(cut) + " of " + std::to_string(s.bytes.size()));
    std::istringstream in(s.bytes.substr(0, cut));
    if (cut < s.chunkEnds[0]) {
      EXPECT_THROW(readNativeTrace(in, "cut.pipescope"), TraceFileError);
      continue;
    }
    NativeReadInfo info;
    std::shared_ptr<Trace> t;
    ASSERT_NO_THROW(t = readNativeTrace(in, "cut.pipescope", {}, &info));
    // The last complete chunk is the last one ending at or before the cut.
    std::size_t k = 0;
    while (k + 1 < s.chunkEnds.size() && s.chunkEnds[k + 1] <= cut) ++k;
    EXPECT_FALSE(info.complete);
    EXPECT_EQ(info.ops, s.opsAfter[k]);
    EXPECT_EQ(info.bytesUsed, s.chunkEnds[k]);
    EXPECT_NE(info.note.find("recovered " + std::to_string(s.opsAfter[k]) + " ops"), std::string::npos) << info.note;
    EXPECT_EQ(t->outcome().state, RunState::Stopped);
    EXPECT_NE(t->outcome().message.find("recovered"), std::string::npos);
    EXPECT_EQ(t->lanes(), source->lanes());
    const TraceView got = t->ops().snapshot();
    ASSERT_EQ(got.size(), s.opsAfter[k]);
    for (std::uint64_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], all[i]) << "op " << i;
  }
}

TEST(TraceStream, DamageInsideAChunkIsAnErrorNotARecovery) {
  ScratchDir dir;
  const auto source = filetest::makeSimTrace(12);
  Streamed s = streamInPieces(*source, dir.file("d.pipescope"), 2);
  s.bytes[s.chunkEnds[1] + 2] ^= 0x55;  // inside the second piece's chunk tag
  std::istringstream in(s.bytes);
  EXPECT_THROW(readNativeTrace(in, "d.pipescope"), TraceFileError);
}

TEST(TraceStream, BoundedWindowStaysBoundedAndTheFileKeepsEveryOp) {
  ScratchDir dir;
  const auto source = filetest::makeSimTrace(3000);
  const TraceView ops = source->ops().snapshot();
  ASSERT_GT(ops.size(), 5u * TraceStore::kChunkOps);
  auto trace = emptyCopy(*source, /*maxOps=*/TraceStore::kChunkOps);
  trace->ops().retainFrom(0);  // as EngineThread::start(keepUntilStreamed) does
  TraceStreamWriter::Options o;
  o.background = false;
  TraceStreamWriter w(trace, dir.file("bounded.pipescope"), o);
  for (std::uint64_t i = 0; i < ops.size(); ++i) {
    trace->ops().append(ops[i]);
    if (i % 1000 == 999) {
      trace->ops().publish();
      w.writeChunk();
      EXPECT_LE(trace->ops().snapshot().size(), 4 * TraceStore::kChunkOps) << "memory must stay bounded";
    }
  }
  trace->ops().publish();
  trace->setOutcome(source->outcome());
  w.finish();
  EXPECT_GT(trace->ops().droppedCount(), 0u);
  const auto loaded = loadNativeTrace(dir.file("bounded.pipescope"));
  filetest::expectSameOps(*source, *loaded);
}

TEST(TraceStream, WithoutAWriterTheWindowIsNotHeldBack) {
  const auto source = filetest::makeSimTrace(3000);
  const TraceView ops = source->ops().snapshot();
  auto trace = emptyCopy(*source, TraceStore::kChunkOps);
  trace->ops().retainFrom(0);
  {
    TraceStreamWriter::Options o;
    o.background = false;
    ScratchDir dir;
    TraceStreamWriter w(trace, dir.file("x.pipescope"), o);
  }  // an abandoned writer lifts its mark
  for (std::uint64_t i = 0; i < ops.size(); ++i) trace->ops().append(ops[i]);
  trace->ops().publish();
  EXPECT_LE(trace->ops().snapshot().size(), 4 * TraceStore::kChunkOps);
}

TEST(TraceStream, BackgroundThreadWritesAtLeastOncePerInterval) {
  ScratchDir dir;
  const auto source = filetest::makeSimTrace(10);
  auto trace = emptyCopy(*source);
  TraceStreamWriter::Options o;
  o.interval = std::chrono::milliseconds(20);
  TraceStreamWriter w(trace, dir.file("bg.pipescope"), o);
  const TraceView ops = source->ops().snapshot();
  for (std::uint64_t i = 0; i < ops.size(); ++i) trace->ops().append(ops[i]);
  trace->ops().publish();
  for (int i = 0; i < 200 && w.opsWritten() < ops.size(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(w.opsWritten(), ops.size());
  // Not finished: the file opens as a cut one, with every op.
  NativeReadInfo info;
  const auto t = loadNativeTrace(dir.file("bg.pipescope"), {}, &info);
  EXPECT_FALSE(info.complete);
  EXPECT_EQ(t->ops().publishedCount(), ops.size());
  EXPECT_TRUE(w.error().empty());
}

TEST(TraceStream, VersionOneFilesStillLoad) {
  // Version 1 layout (pipescope up to issue 16): one header with op_count, the op
  // count, blocks, "END.". Built here from the same codec pieces.
  const auto source = filetest::makeSimTrace(8);
  const TraceView ops = source->ops().snapshot();
  nlohmann::json head = native::metadataJson(*source);
  head["first_op_index"] = 0;
  head["op_count"] = ops.size();
  const std::string raw = head.dump();
  const std::string packed = native::compress(raw);
  std::string file(kNativeMagic);
  native::put<std::uint32_t>(file, 1);
  native::put<std::uint32_t>(file, 0);
  native::put<std::uint64_t>(file, packed.size());
  native::put<std::uint64_t>(file, raw.size());
  file += packed;
  native::put<std::uint64_t>(file, ops.size());
  native::appendBlocks(file, ops, ops.begin(), ops.end());
  file += "END.";
  std::istringstream in(file);
  NativeReadInfo info;
  const auto t = readNativeTrace(in, "v1.pipescope", {}, &info);
  EXPECT_EQ(info.version, 1u);
  EXPECT_TRUE(info.complete);
  filetest::expectSameTrace(*source, *t);
  // A cut version 1 file is an error (it has no chunks to recover from).
  std::istringstream cut(file.substr(0, file.size() - 10));
  EXPECT_THROW(readNativeTrace(cut, "v1.pipescope"), TraceFileError);
}

}  // namespace
}  // namespace pipescope
