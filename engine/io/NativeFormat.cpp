#include "io/NativeFormat.h"

#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "io/AtomicFile.h"
#include "io/TraceMetadataJson.h"

namespace pipescope {

namespace {

using nlohmann::json;

constexpr std::uint64_t kMaxHeaderBytes = 64ull << 20;
// Bytes per op in a block's column layout: 5 x 8 (start delta, duration, engine
// wait, stream wait, bytes) + 2 x 4 (batch, correlation) + 4 x 2 (lane, engine
// lane, name, stream) + 2 x 1 (kind, flags).
constexpr std::size_t kOpBytes = 58;

template <typename T>
void put(std::string& s, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));  // files are little-endian; so are the machines pipescope runs on
  s.append(b, sizeof(T));
}

template <typename T>
T get(const char*& p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  p += sizeof(T);
  return v;
}

std::string compress(const std::string& raw) {
  std::string out(ZSTD_compressBound(raw.size()), '\0');
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  const std::size_t n = ZSTD_compress2(cctx, out.data(), out.size(), raw.data(), raw.size());
  ZSTD_freeCCtx(cctx);
  if (ZSTD_isError(n)) throw TraceFileError(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

// Columns of one block; unsigned arithmetic so any int64 values round-trip without UB.
std::string encodeBlock(const TraceView& ops, std::uint64_t from, std::uint64_t n) {
  std::string s;
  s.reserve(n * kOpBytes);
  std::uint64_t prev = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t st = std::uint64_t(ops.at(from + i).start);
    put<std::uint64_t>(s, st - prev);
    prev = st;
  }
  for (std::uint64_t i = 0; i < n; ++i)
    put<std::uint64_t>(s, std::uint64_t(ops.at(from + i).end) - std::uint64_t(ops.at(from + i).start));
  for (std::uint64_t i = 0; i < n; ++i)
    put<std::uint64_t>(s, std::uint64_t(ops.at(from + i).start) - std::uint64_t(ops.at(from + i).ready));
  for (std::uint64_t i = 0; i < n; ++i)
    put<std::uint64_t>(s, std::uint64_t(ops.at(from + i).ready) - std::uint64_t(ops.at(from + i).submit));
  for (std::uint64_t i = 0; i < n; ++i) put<std::uint64_t>(s, ops.at(from + i).bytes);
  for (std::uint64_t i = 0; i < n; ++i) put<std::int32_t>(s, ops.at(from + i).batch);
  for (std::uint64_t i = 0; i < n; ++i) put<std::uint32_t>(s, ops.at(from + i).correlation);
  for (std::uint64_t i = 0; i < n; ++i) put<std::uint16_t>(s, ops.at(from + i).lane);
  for (std::uint64_t i = 0; i < n; ++i) put<std::uint16_t>(s, ops.at(from + i).engineLane);
  for (std::uint64_t i = 0; i < n; ++i) put<std::uint16_t>(s, ops.at(from + i).name);
  for (std::uint64_t i = 0; i < n; ++i) put<std::int16_t>(s, ops.at(from + i).stream);
  for (std::uint64_t i = 0; i < n; ++i) put<std::uint8_t>(s, std::uint8_t(ops.at(from + i).kind));
  for (std::uint64_t i = 0; i < n; ++i) put<std::uint8_t>(s, ops.at(from + i).flags);
  return s;
}

class Reader {
 public:
  Reader(std::istream& in, const std::string& name) : in_(in), name_(name) {
    in_.seekg(0, std::ios::end);
    const auto end = in_.tellg();
    size_ = end > 0 ? std::uint64_t(end) : 0;
    in_.seekg(0, std::ios::beg);
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw TraceFileError("'" + name_ + "': byte " + std::to_string(pos_) + ": " + what);
  }
  std::uint64_t pos() const { return pos_; }
  std::uint64_t size() const { return size_; }
  std::uint64_t remaining() const { return size_ - pos_; }
  void read(char* dst, std::uint64_t n, const char* what) {
    if (n > remaining())
      fail(std::string("file ends early: expected ") + what + " of " + std::to_string(n) + " bytes, only " +
           std::to_string(remaining()) + " left (the file is truncated)");
    in_.read(dst, std::streamsize(n));
    if (std::uint64_t(in_.gcount()) != n) fail(std::string("cannot read ") + what);
    pos_ += n;
  }
  template <typename T>
  T value(const char* what) {
    char b[sizeof(T)];
    read(b, sizeof(T), what);
    T v;
    std::memcpy(&v, b, sizeof(T));
    return v;
  }
  std::string decompress(std::uint64_t compressedSize, std::uint64_t rawSize, const char* what) {
    const std::uint64_t at = pos_;
    if (compressedSize > remaining())
      fail(std::string(what) + " of " + std::to_string(compressedSize) + " bytes declared, only " +
           std::to_string(remaining()) + " left (the file is truncated)");
    std::string packed(compressedSize, '\0');
    read(packed.data(), compressedSize, what);
    const unsigned long long declared = ZSTD_getFrameContentSize(packed.data(), packed.size());
    if (declared == ZSTD_CONTENTSIZE_ERROR || declared == ZSTD_CONTENTSIZE_UNKNOWN) {
      pos_ = at;
      fail(std::string(what) + " is not a valid zstd frame (the file is damaged)");
    }
    if (declared != rawSize) {
      pos_ = at;
      fail(std::string(what) + " holds " + std::to_string(declared) + " bytes, expected " + std::to_string(rawSize) +
           " (the file is damaged)");
    }
    std::string raw(rawSize, '\0');
    const std::size_t n = ZSTD_decompress(raw.data(), raw.size(), packed.data(), packed.size());
    if (ZSTD_isError(n) || n != rawSize) {
      pos_ = at;
      fail(std::string(what) + " does not decompress (" + (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "size mismatch") +
           "; the file is damaged)");
    }
    return raw;
  }

 private:
  std::istream& in_;
  const std::string& name_;
  std::uint64_t size_ = 0;
  std::uint64_t pos_ = 0;
};

}  // namespace

bool looksLikeNativeTrace(std::string_view head) { return head.substr(0, kNativeMagic.size()) == kNativeMagic; }

void writeNativeTrace(const Trace& trace, std::ostream& out) {
  const TraceView ops = trace.ops().snapshot();
  json head;
  head["config_history"] = configHistoryToJson(trace.configHistory());
  head["device"] = deviceToJson(trace.device());
  head["outcome"] = outcomeToJson(trace.outcome());
  head["completed_batches"] = trace.completedBatches();
  head["first_op_index"] = ops.begin();
  json lanes = json::array();
  for (const auto& l : trace.lanes()) lanes.push_back(laneToJson(l));
  head["lanes"] = lanes;
  head["names"] = trace.names();
  head["op_count"] = ops.size();
  const std::string headRaw = head.dump();
  const std::string headPacked = compress(headRaw);

  std::string pre(kNativeMagic);
  put<std::uint32_t>(pre, kNativeVersion);
  put<std::uint32_t>(pre, 0);  // flags, reserved
  put<std::uint64_t>(pre, headPacked.size());
  put<std::uint64_t>(pre, headRaw.size());
  out.write(pre.data(), std::streamsize(pre.size()));
  out.write(headPacked.data(), std::streamsize(headPacked.size()));

  const std::uint64_t count = ops.size();
  std::string counts;
  put<std::uint64_t>(counts, count);
  out.write(counts.data(), std::streamsize(counts.size()));
  for (std::uint64_t from = 0; from < count; from += kNativeBlockOps) {
    const std::uint64_t n = std::min<std::uint64_t>(kNativeBlockOps, count - from);
    const std::string packed = compress(encodeBlock(ops, ops.begin() + from, n));
    std::string blockHead;
    put<std::uint32_t>(blockHead, std::uint32_t(n));
    put<std::uint32_t>(blockHead, std::uint32_t(packed.size()));
    out.write(blockHead.data(), std::streamsize(blockHead.size()));
    out.write(packed.data(), std::streamsize(packed.size()));
  }
  out.write("END.", 4);
}

void saveNativeTrace(const Trace& trace, const std::string& path) {
  writeFileAtomically(path, [&](std::ostream& out) { writeNativeTrace(trace, out); });
}

std::shared_ptr<Trace> readNativeTrace(std::istream& in, const std::string& name, const LoadControl& control) {
  Reader r(in, name);
  std::string magic(kNativeMagic.size(), '\0');
  r.read(magic.data(), magic.size(), "the file signature");
  if (magic != kNativeMagic) throw TraceFileError("'" + name + "': not a pipescope trace (wrong file signature)");
  const auto version = r.value<std::uint32_t>("the format version");
  if (version == 0 || version > kNativeVersion)
    throw TraceFileError("'" + name + "': written by a newer pipescope (trace format version " +
                         std::to_string(version) + "); this build reads versions up to " +
                         std::to_string(kNativeVersion) + ". Update pipescope to open it.");
  (void)r.value<std::uint32_t>("the flags");
  const auto headPacked = r.value<std::uint64_t>("the header size");
  const auto headRawSize = r.value<std::uint64_t>("the header size");
  if (headRawSize > kMaxHeaderBytes || headPacked > kMaxHeaderBytes)
    r.fail("header of " + std::to_string(headRawSize) + " bytes declared; at most " + std::to_string(kMaxHeaderBytes) +
           " allowed (the file is damaged)");
  const std::string headText = r.decompress(headPacked, headRawSize, "the header");

  auto trace = std::make_shared<Trace>();
  std::vector<Lane> lanes;
  std::vector<std::string> names;
  std::uint64_t declaredOps = 0;
  try {
    const json head = json::parse(headText);
    const json& laneList = requireField(head, "lanes", "header");
    if (!laneList.is_array() || laneList.size() >= kNoLane)
      throw std::invalid_argument("'lanes': expected an array of at most 65534 lanes");
    for (std::size_t i = 0; i < laneList.size(); ++i) lanes.push_back(laneFromJson(laneList[i], i));
    const json& nameList = requireField(head, "names", "header");
    if (!nameList.is_array()) throw std::invalid_argument("'names': expected an array of strings");
    for (const auto& n : nameList) {
      if (!n.is_string()) throw std::invalid_argument("'names': expected an array of strings");
      names.push_back(n.get<std::string>());
    }
    declaredOps = std::uint64_t(requireInt(head, "op_count", "header", 0, std::int64_t(kMaxTraceOps)));
    applyMetadata(*trace, configHistoryFromJson(requireField(head, "config_history", "header")),
                  deviceFromJson(requireField(head, "device", "header")),
                  outcomeFromJson(requireField(head, "outcome", "header")),
                  requireInt(head, "completed_batches", "header", 0, std::numeric_limits<std::int64_t>::max()), lanes,
                  names);
  } catch (const json::exception& e) {
    throw TraceFileError("'" + name + "': header: " + e.what());
  } catch (const std::invalid_argument& e) {
    throw TraceFileError("'" + name + "': header: " + e.what());
  }

  const auto count = r.value<std::uint64_t>("the op count");
  if (count != declaredOps)
    r.fail("op count " + std::to_string(count) + " disagrees with the header's " + std::to_string(declaredOps) +
           " (the file is damaged)");
  TraceStore& store = trace->ops();
  std::uint64_t done = 0;
  std::uint64_t block = 0;
  while (done < count) {
    control.checkCancel();
    const auto n = r.value<std::uint32_t>("a block's op count");
    const auto packedSize = r.value<std::uint32_t>("a block's size");
    const std::uint64_t expected = std::min<std::uint64_t>(kNativeBlockOps, count - done);
    if (n != expected)
      r.fail("block " + std::to_string(block) + " holds " + std::to_string(n) + " ops, expected " +
             std::to_string(expected) + " (the file is damaged)");
    const std::string raw = r.decompress(packedSize, std::uint64_t(n) * kOpBytes, "an op block");
    const char* col[13];
    const std::size_t widths[13] = {8, 8, 8, 8, 8, 4, 4, 2, 2, 2, 2, 1, 1};
    const char* p = raw.data();
    for (int c = 0; c < 13; ++c) {
      col[c] = p;
      p += widths[c] * n;
    }
    std::uint64_t start = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      Op op;
      start += get<std::uint64_t>(col[0]);
      op.start = std::int64_t(start);
      const auto dur = get<std::uint64_t>(col[1]);
      const auto engineWait = get<std::uint64_t>(col[2]);
      const auto streamWait = get<std::uint64_t>(col[3]);
      op.end = std::int64_t(start + dur);
      op.ready = std::int64_t(start - engineWait);
      op.submit = std::int64_t(start - engineWait - streamWait);
      op.bytes = get<std::uint64_t>(col[4]);
      op.batch = get<std::int32_t>(col[5]);
      op.correlation = get<std::uint32_t>(col[6]);
      op.lane = get<std::uint16_t>(col[7]);
      op.engineLane = get<std::uint16_t>(col[8]);
      op.name = get<std::uint16_t>(col[9]);
      op.stream = get<std::int16_t>(col[10]);
      const auto kind = get<std::uint8_t>(col[11]);
      op.flags = get<std::uint8_t>(col[12]);
      // Built only for a message: this loop runs once per op of the file.
      auto which = [&] { return "op " + std::to_string(done + i); };
      if (kind >= kOpKindCount) r.fail(which() + ": unknown op kind " + std::to_string(kind) + " (the file is damaged)");
      op.kind = OpKind(kind);
      if (std::int64_t(dur) < 0) r.fail(which() + ": negative duration (the file is damaged)");
      if (op.lane != kNoLane && op.lane >= lanes.size())
        r.fail(which() + ": lane " + std::to_string(op.lane) + " does not exist (the trace has " +
               std::to_string(lanes.size()) + " lanes)");
      if (op.engineLane != kNoLane && op.engineLane >= lanes.size())
        r.fail(which() + ": engine lane " + std::to_string(op.engineLane) + " does not exist (the trace has " +
               std::to_string(lanes.size()) + " lanes)");
      if (op.name >= names.size())
        r.fail(which() + ": name " + std::to_string(op.name) + " does not exist (the trace has " +
               std::to_string(names.size()) + " names)");
      store.append(op);
    }
    store.publish();
    done += n;
    ++block;
    control.report(double(done) / double(count));
  }
  char end[4];
  r.read(end, 4, "the end marker");
  if (std::memcmp(end, "END.", 4) != 0) r.fail("expected the end marker 'END.' (the file is damaged)");
  if (r.remaining() != 0) r.fail(std::to_string(r.remaining()) + " unexpected bytes after the end marker");
  return trace;
}

std::shared_ptr<Trace> loadNativeTrace(const std::string& path, const LoadControl& control) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceFileError("cannot open '" + path + "': " + std::strerror(errno));
  return readNativeTrace(in, path, control);
}

}  // namespace pipescope
