#include "io/NativeFormat.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <vector>

#include "io/NativeCodec.h"
#include "io/NativeStream.h"
#include "io/OutputFile.h"
#include "io/TraceMetadataJson.h"

namespace pipescope {

namespace {

using nlohmann::json;
using native::Reader;

// A whole trace is written in chunks of this many ops, so neither writer nor reader
// holds more than one chunk's compressed bytes at once.
constexpr std::uint64_t kWholeFileChunkOps = 1u << 20;

void setRunInfo(Trace& trace, const native::Metadata& m) {
  applyRunInfo(trace, m.history, m.devices, m.outcome, m.completedBatches);
  if (!m.ranks.empty()) trace.setRanks(m.ranks);
}

/// A block's ops, checked while decoded against the tables declared before them.
void appendBlock(TraceAssembler& out, const std::vector<Op>& ops, const OpCheck& check) {
  out.addCheckedOps(ops, check);
  out.trace().ops().publish();
}

/// Version 1: one header, the op count, blocks, "END.".
std::shared_ptr<Trace> readVersion1(Reader& r, const std::string& name, const LoadControl& control,
                                    NativeReadInfo& info) {
  (void)r.value<std::uint32_t>("the flags");
  const json head = r.header("the header");
  const native::Metadata meta = native::parseMetadata(head, name);
  std::uint64_t declaredOps = 0;
  try {
    declaredOps = std::uint64_t(requireInt(head, "op_count", "header", 0, std::int64_t(kMaxTraceOps)));
  } catch (const std::exception& e) {
    throw TraceFileError("'" + name + "': header: " + e.what());
  }
  TraceAssembler out(name);
  out.declareTables(meta.tables);
  setRunInfo(out.trace(), meta);
  const OpCheck check = out.opCheck();
  const auto count = r.value<std::uint64_t>("the op count");
  if (count != declaredOps)
    r.fail("op count " + std::to_string(count) + " disagrees with the header's " + std::to_string(declaredOps) +
           " (the file is damaged)");
  std::uint64_t done = 0;
  std::vector<Op> ops;
  while (done < count) {
    control.checkCancel();
    ops.clear();
    done += native::readBlock(r, check, done, std::min<std::uint64_t>(65536, count - done), ops);
    appendBlock(out, ops, check);
    control.report(double(done) / double(count));
  }
  char end[4];
  r.read(end, 4, "the end marker");
  if (std::memcmp(end, "END.", 4) != 0) r.fail("expected the end marker 'END.' (the file is damaged)");
  if (r.remaining() != 0) r.fail(std::to_string(r.remaining()) + " unexpected bytes after the end marker");
  info.ops = done;
  info.bytesUsed = r.pos();
  return out.finish();
}

/// Version 2: self-contained chunks; a file that ends early keeps its complete chunks.
std::shared_ptr<Trace> readVersion2(Reader& r, const std::string& name, const LoadControl& control,
                                    NativeReadInfo& info) {
  (void)r.value<std::uint32_t>("the flags");
  TraceAssembler out(name);
  std::optional<native::Metadata> last;
  std::vector<Op> ops;
  std::string cutReason;
  for (;;) {
    control.checkCancel();
    const std::uint64_t chunkStart = r.pos();
    try {
      char tag[4];
      r.read(tag, 4, "a chunk or the end marker");
      if (std::string_view(tag, 4) == native::kEndTag) {
        if (r.remaining() != 0) r.fail(std::to_string(r.remaining()) + " unexpected bytes after the end marker");
        break;
      }
      if (std::string_view(tag, 4) != native::kChunkTag)
        r.fail("expected a chunk ('CHNK') or the end marker ('END.') (the file is damaged)");
      const auto before = r.value<std::uint64_t>("the chunk's first op");
      const auto count = r.value<std::uint32_t>("the chunk's op count");
      const auto blocks = r.value<std::uint32_t>("the chunk's block count");
      if (before != info.ops)
        r.fail("the chunk says " + std::to_string(before) + " ops come before it, but " + std::to_string(info.ops) +
               " did (the file is damaged)");
      if (info.ops + count > kMaxTraceOps)
        r.fail("more than " + std::to_string(kMaxTraceOps) + " ops (the file is damaged or too large)");
      if (std::uint64_t(blocks) != (std::uint64_t(count) + 65535) / 65536)
        r.fail(std::to_string(blocks) + " blocks for " + std::to_string(count) + " ops (the file is damaged)");
      native::Metadata meta = native::parseMetadata(r.header("the chunk's header"), name);
      // Checked against the chunk's own tables; they are declared (and checked against
      // the chunks before) once the chunk is complete.
      const OpCheck check(name, meta.tables.lanes.size(), meta.tables.names.size());
      ops.clear();
      std::uint64_t read = 0;
      for (std::uint32_t b = 0; b < blocks; ++b)
        read += native::readBlock(r, check, info.ops + read, std::min<std::uint64_t>(65536, count - read), ops);
      char endTag[4];
      r.read(endTag, 4, "the chunk's end marker");
      if (std::string_view(endTag, 4) != native::kChunkEndTag)
        r.fail("expected the chunk's end marker 'CEND' (the file is damaged)");
      // The chunk is complete: only now do its ops, tables and metadata count.
      out.addCheckedOps(ops, check);
      out.trace().ops().publish();
      out.declareTables(meta.tables);
      info.ops += count;
      ++info.chunks;
      info.bytesUsed = r.pos();
      last = std::move(meta);
      if (r.size() > 0) control.report(double(r.pos()) / double(r.size()));
    } catch (const native::Truncated& e) {
      if (!last)
        throw TraceFileError("'" + name + "': the file ends at byte " + std::to_string(r.size()) +
                             ", before its first complete chunk, so there is nothing to recover (" + e.what() + ")");
      cutReason = chunkStart == r.size() ? "after its last complete chunk"
                                         : "inside a chunk that starts at byte " + std::to_string(chunkStart);
      info.complete = false;
      break;
    }
  }
  if (!last) r.fail("the file holds no chunk (the file is damaged)");
  if (!info.complete) {
    info.note = "recovered " + std::to_string(info.ops) + " ops in " + std::to_string(info.chunks) +
                " complete chunks (" + std::to_string(info.bytesUsed) + " of " + std::to_string(r.size()) +
                " bytes); the file ends " + cutReason +
                " without its end marker: the program writing it was stopped before it finished";
    if (last->outcome.state == RunState::Running || last->outcome.state == RunState::NotStarted)
      last->outcome.state = RunState::Stopped;
    last->outcome.message = last->outcome.message.empty() ? info.note : last->outcome.message + "; " + info.note;
  }
  setRunInfo(out.trace(), *last);
  return out.finish();
}

}  // namespace

bool looksLikeNativeTrace(std::string_view head) { return head.substr(0, kNativeMagic.size()) == kNativeMagic; }

void writeNativeTrace(const Trace& trace, std::ostream& out) {
  const TraceView ops = trace.ops().snapshot();
  const std::string head = native::fileHead();
  out.write(head.data(), std::streamsize(head.size()));
  std::uint64_t from = ops.begin();
  do {
    const std::uint64_t to = std::min(ops.end(), from + kWholeFileChunkOps);
    const std::string c = native::chunk(trace, ops, from, to, from - ops.begin());
    out.write(c.data(), std::streamsize(c.size()));
    from = to;
  } while (from < ops.end());
  out.write(native::kEndTag.data(), std::streamsize(native::kEndTag.size()));
}

void saveNativeTrace(const Trace& trace, const std::string& path) {
  writeOutputFile(path, [&](std::ostream& out) { writeNativeTrace(trace, out); });
}

std::shared_ptr<Trace> readNativeTrace(std::istream& in, const std::string& name, const LoadControl& control,
                                       NativeReadInfo* infoOut) {
  Reader r(in, name);
  NativeReadInfo info;
  info.fileBytes = r.size();
  std::string magic(kNativeMagic.size(), '\0');
  try {
    r.read(magic.data(), magic.size(), "the file signature");
  } catch (const native::Truncated&) {
    throw TraceFileError("'" + name + "': not a pipescope trace (shorter than the file signature)");
  }
  if (magic != kNativeMagic) throw TraceFileError("'" + name + "': not a pipescope trace (wrong file signature)");
  std::shared_ptr<Trace> trace;
  try {
    info.version = r.value<std::uint32_t>("the format version");
    if (info.version == 0 || info.version > kNativeVersion)
      throw TraceFileError("'" + name + "': written by a newer pipescope (trace format version " +
                           std::to_string(info.version) + "); this build reads versions up to " +
                           std::to_string(kNativeVersion) + ". Update pipescope to open it.");
    trace = info.version == 1 ? readVersion1(r, name, control, info) : readVersion2(r, name, control, info);
  } catch (const native::Truncated& e) {
    throw TraceFileError(e.what());  // version 1 files, or a cut before the first chunk
  }
  if (infoOut) *infoOut = info;
  return trace;
}

std::shared_ptr<Trace> loadNativeTrace(const std::string& path, const LoadControl& control, NativeReadInfo* info) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceFileError("cannot open '" + path + "': " + std::strerror(errno));
  return readNativeTrace(in, path, control, info);
}

}  // namespace pipescope
