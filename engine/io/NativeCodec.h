#pragma once
// The building blocks of the native trace format (NativeFormat.h), shared by the
// whole-file writer, the streaming writer (TraceStreamWriter.h) and the reader:
// zstd frames, op blocks in columns, the metadata header, and a bounds-checked
// reader that tells a file that merely ends early (cut off) from a damaged one.
#include <cstdint>
#include <cstring>
#include <istream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/TraceAssembler.h"
#include "io/TraceFileError.h"
#include "trace/Trace.h"

namespace pipescope::native {

/// Bytes per op in a block's column layout: 5 x 8 (start delta, duration, engine
/// wait, stream wait, bytes) + 2 x 4 (batch, correlation) + 4 x 2 (lane, engine
/// lane, name, stream) + 2 x 1 (kind, flags).
inline constexpr std::size_t kOpBytes = 58;
inline constexpr std::uint64_t kMaxHeaderBytes = 64ull << 20;

template <typename T>
void put(std::string& s, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));  // files are little-endian; so are the machines pipescope runs on
  s.append(b, sizeof(T));
}

/// A zstd frame (level 3, with checksum) of `raw`.
std::string compress(const std::string& raw);
/// Ops [from, from + n) of `ops` (global indices) in the block column layout.
std::string encodeBlock(const TraceView& ops, std::uint64_t from, std::uint64_t n);
/// The metadata of `trace` as the JSON header object (everything but the ops).
nlohmann::json metadataJson(const Trace& trace);
/// Appends "u32 ops, u32 packed size, zstd frame" blocks for ops [from, to) of `ops`.
void appendBlocks(std::string& out, const TraceView& ops, std::uint64_t from, std::uint64_t to);

/// Thrown by Reader when the file ends before the bytes it needs: the file was cut
/// off (a crash or a kill while it was written), as opposed to damaged.
class Truncated : public TraceFileError {
 public:
  using TraceFileError::TraceFileError;
};

/// Bounds-checked reading of a whole file; every failure names the file and byte.
class Reader {
 public:
  Reader(std::istream& in, const std::string& name);
  [[noreturn]] void fail(const std::string& what) const;
  std::uint64_t pos() const { return pos_; }
  std::uint64_t size() const { return size_; }
  std::uint64_t remaining() const { return size_ - pos_; }
  void read(char* dst, std::uint64_t n, const char* what);
  template <typename T>
  T value(const char* what) {
    char b[sizeof(T)];
    read(b, sizeof(T), what);
    T v;
    std::memcpy(&v, b, sizeof(T));
    return v;
  }
  /// Reads a zstd frame of `compressedSize` bytes holding exactly `rawSize` bytes.
  std::string decompress(std::uint64_t compressedSize, std::uint64_t rawSize, const char* what);
  /// Reads a zstd-compressed JSON header (sizes first) and parses it.
  nlohmann::json header(const char* what);

 private:
  std::istream& in_;
  const std::string& name_;
  std::uint64_t size_ = 0;
  std::uint64_t pos_ = 0;
};

/// What a header's metadata says; its tables are checked when declared (TraceAssembler).
struct Metadata {
  std::vector<ConfigChange> history;
  std::vector<DeviceInfo> devices;  ///< every GPU; the first is the header's "device"
  std::vector<RankInfo> ranks;      ///< a job's ranks (header "ranks"), empty otherwise
  RunOutcome outcome;
  std::int64_t completedBatches = 0;
  TraceTables tables;
};
/// Parses the metadata of a header; throws TraceFileError naming `name`.
Metadata parseMetadata(const nlohmann::json& head, const std::string& name);

/// Reads one op block (its "u32 ops, u32 size" head and frame) and appends its ops to
/// `out` after checking them with `check` (the chunk's tables; a chunk's ops reach the
/// trace only once the whole chunk was read); `firstOp` numbers them in messages.
/// `expected`, when nonzero, is the op count the block must hold.
std::uint32_t readBlock(Reader& r, const OpCheck& check, std::uint64_t firstOp, std::uint64_t expected,
                        std::vector<Op>& out);

}  // namespace pipescope::native
