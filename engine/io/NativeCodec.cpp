#include "io/NativeCodec.h"

#include <zstd.h>

#include <limits>
#include <vector>

#include "io/RankInfoJson.h"
#include "io/TraceMetadataJson.h"

namespace pipescope::native {

using nlohmann::json;

namespace {
template <typename T>
T get(const char*& p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  p += sizeof(T);
  return v;
}
}  // namespace

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
// One pass over the ops (each decoded once from the store), writing every column.
std::string encodeBlock(const TraceView& ops, std::uint64_t from, std::uint64_t n) {
  constexpr std::size_t kWidths[13] = {8, 8, 8, 8, 8, 4, 4, 2, 2, 2, 2, 1, 1};
  std::string s(n * kOpBytes, '\0');
  char* col[13];
  char* p = s.data();
  for (int c = 0; c < 13; ++c) {
    col[c] = p;
    p += kWidths[c] * n;
  }
  const auto write = [&col](int c, auto v) {
    std::memcpy(col[c], &v, sizeof(v));
    col[c] += sizeof(v);
  };
  std::uint64_t prev = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const Op op = ops.at(from + i);
    const auto start = std::uint64_t(op.start), ready = std::uint64_t(op.ready);
    write(0, std::uint64_t(start - prev));
    prev = start;
    write(1, std::uint64_t(std::uint64_t(op.end) - start));
    write(2, std::uint64_t(start - ready));
    write(3, std::uint64_t(ready - std::uint64_t(op.submit)));
    write(4, std::uint64_t(op.bytes));
    write(5, std::int32_t(op.batch));
    write(6, std::uint32_t(op.correlation));
    write(7, std::uint16_t(op.lane));
    write(8, std::uint16_t(op.engineLane));
    write(9, std::uint16_t(op.name));
    write(10, std::int16_t(op.stream));
    write(11, std::uint8_t(op.kind));
    write(12, std::uint8_t(op.flags));
  }
  return s;
}

json metadataJson(const Trace& trace) {
  json head;
  head["config_history"] = configHistoryToJson(trace.configHistory());
  head["device"] = deviceToJson(trace.device());
  head["devices"] = devicesToJson(trace.devices());
  if (const auto ranks = trace.ranks(); !ranks.empty()) head["ranks"] = ranksToJson(ranks);
  head["outcome"] = outcomeToJson(trace.outcome());
  head["completed_batches"] = trace.completedBatches();
  json lanes = json::array();
  for (const auto& l : trace.lanes()) lanes.push_back(laneToJson(l));
  head["lanes"] = lanes;
  head["names"] = trace.names();
  return head;
}

void appendBlocks(std::string& out, const TraceView& ops, std::uint64_t from, std::uint64_t to) {
  constexpr std::uint64_t kBlockOps = 65536;
  for (std::uint64_t at = from; at < to; at += kBlockOps) {
    const std::uint64_t n = std::min<std::uint64_t>(kBlockOps, to - at);
    const std::string packed = compress(encodeBlock(ops, at, n));
    put<std::uint32_t>(out, std::uint32_t(n));
    put<std::uint32_t>(out, std::uint32_t(packed.size()));
    out += packed;
  }
}

Reader::Reader(std::istream& in, const std::string& name) : in_(in), name_(name) {
  in_.seekg(0, std::ios::end);
  const auto end = in_.tellg();
  size_ = end > 0 ? std::uint64_t(end) : 0;
  in_.seekg(0, std::ios::beg);
}

void Reader::fail(const std::string& what) const {
  throw TraceFileError("'" + name_ + "': byte " + std::to_string(pos_) + ": " + what);
}

void Reader::read(char* dst, std::uint64_t n, const char* what) {
  if (n > remaining())
    throw Truncated("'" + name_ + "': byte " + std::to_string(pos_) + ": file ends early: expected " + what + " of " +
                    std::to_string(n) + " bytes, only " + std::to_string(remaining()) +
                    " left (the file is truncated)");
  in_.read(dst, std::streamsize(n));
  if (std::uint64_t(in_.gcount()) != n) fail(std::string("cannot read ") + what);
  pos_ += n;
}

std::string Reader::decompress(std::uint64_t compressedSize, std::uint64_t rawSize, const char* what) {
  const std::uint64_t at = pos_;
  if (compressedSize > remaining())
    throw Truncated("'" + name_ + "': byte " + std::to_string(pos_) + ": " + what + " of " +
                    std::to_string(compressedSize) + " bytes declared, only " + std::to_string(remaining()) +
                    " left (the file is truncated)");
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

json Reader::header(const char* what) {
  const auto packed = value<std::uint64_t>("the header size");
  const auto rawSize = value<std::uint64_t>("the header size");
  if (rawSize > kMaxHeaderBytes || packed > kMaxHeaderBytes)
    fail(std::string(what) + " of " + std::to_string(rawSize) + " bytes declared; at most " +
         std::to_string(kMaxHeaderBytes) + " allowed (the file is damaged)");
  const std::string text = decompress(packed, rawSize, what);
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw TraceFileError("'" + name_ + "': " + what + ": " + e.what());
  }
}

Metadata parseMetadata(const json& head, const std::string& name) {
  Metadata m;
  try {
    m.tables = tablesFromJson(head, "header");
    m.history = configHistoryFromJson(requireField(head, "config_history", "header"));
    m.devices = devicesFromJson(head, "header", deviceFromJson(requireField(head, "device", "header")));
    // Absent before traces of several ranks, and for every trace of one process.
    if (head.contains("ranks")) m.ranks = ranksFromJson(head["ranks"]);
    m.outcome = outcomeFromJson(requireField(head, "outcome", "header"));
    m.completedBatches =
        requireInt(head, "completed_batches", "header", 0, std::numeric_limits<std::int64_t>::max());
  } catch (const json::exception& e) {
    throw TraceFileError("'" + name + "': header: " + e.what());
  } catch (const std::invalid_argument& e) {
    throw TraceFileError("'" + name + "': header: " + e.what());
  }
  return m;
}

std::uint32_t readBlock(Reader& r, const OpCheck& check, std::uint64_t firstOp, std::uint64_t expected,
                        std::vector<Op>& out) {
  const auto n = r.value<std::uint32_t>("a block's op count");
  const auto packedSize = r.value<std::uint32_t>("a block's size");
  if (expected != 0 && n != expected)
    r.fail("the block at op " + std::to_string(firstOp) + " holds " + std::to_string(n) + " ops, expected " +
           std::to_string(expected) + " (the file is damaged)");
  if (n == 0 || n > 65536) r.fail("a block of " + std::to_string(n) + " ops (the file is damaged)");
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
    // Any byte fits OpKind's storage; OpCheck rejects the ones that are no kind.
    op.kind = OpKind(get<std::uint8_t>(col[11]));
    op.flags = get<std::uint8_t>(col[12]);
    check(op, OpOrigin{"op", firstOp + i, r.pos()});
    out.push_back(op);
  }
  return n;
}

}  // namespace pipescope::native
