#pragma once
// The stream a recorded process (libpipescope-inject.so inside it) sends to
// `pipescope record`: the native trace's vocabulary (lanes, names, ops) in
// length-prefixed messages, so a stream cut at any byte keeps every message before
// the cut. All integers are little-endian; a string is u32 length + UTF-8 bytes.
//
//   message = u32 size (bytes after this field, 1..kMaxMessageBytes) | u8 type | payload
//
//   Hello  (first message)  magic "PSRECORD" | u16 major | u16 minor | i64 pid | i64 parent pid
//                           | i64 monotonic clock now (ns) | u32 CUPTI version
//                           | str process name | str command line | str timing
//   Device                  u32 id | str name | i32 compute major | i32 compute minor
//                           | u64 memory bytes | i32 multiprocessors | i32 copy engines
//   Lane                    u32 id (0, 1, 2, ... in order) | u8 LaneKind | i32 index | i32 device (-1: host)
//                           | str name
//   Name                    u32 id (1, 2, 3, ... in order) | str text
//   Ops                     u32 count | u16 bytes per op (>= kOpBytes) | count x op
//     op = i64 submit | i64 ready | i64 start | i64 end (CLOCK_MONOTONIC ns) | u64 bytes
//          | i32 batch | u32 correlation | u32 lane | u32 engine lane (kWireNone: none)
//          | u32 name (0: the kind's name) | i32 stream | u8 OpKind | u8 OpFlag bits | u16 0
//   Note                    u8 level (0 info, 1 warning, 2 error) | str text
//   End   (last message)    u64 ops sent | u64 records dropped | str reason
//
// Versions: a reader refuses a newer major version with a message; within a major
// version it skips message types it does not know and the bytes a newer minor
// version appends to a message it knows (an op record's size is in its message).
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pipescope::wire {

inline constexpr std::string_view kMagic{"PSRECORD", 8};
inline constexpr std::uint16_t kMajor = 1;
inline constexpr std::uint16_t kMinor = 0;
/// A message larger than this is damage, not data (an op batch of 16 MiB holds 240k ops).
inline constexpr std::uint32_t kMaxMessageBytes = 16u << 20;
/// Longer strings are cut by the sender (a C++ template kernel name can run to kilobytes).
inline constexpr std::uint32_t kMaxStringBytes = 64u << 10;
inline constexpr std::uint16_t kOpBytes = 68;
inline constexpr std::uint32_t kWireNone = 0xFFFFFFFFu;

/// Where a recorded process finds its recorder: a UNIX socket path.
inline constexpr const char* kSocketVariable = "PIPESCOPE_RECORD_SOCKET";
/// Optional: only ops of this CUDA device are sent (pipescope record --device N).
inline constexpr const char* kDeviceVariable = "PIPESCOPE_RECORD_DEVICE";

enum class MessageType : std::uint8_t { Hello = 1, Device = 2, Lane = 3, Name = 4, Ops = 5, Note = 6, End = 7 };

struct Hello {
  std::uint16_t major = kMajor;
  std::uint16_t minor = kMinor;
  std::int64_t pid = 0;
  std::int64_t parentPid = 0;
  std::int64_t clockNs = 0;
  std::uint32_t cuptiVersion = 0;
  std::string processName;
  std::string commandLine;
  std::string timing;  ///< how the sender put its times on CLOCK_MONOTONIC
  bool operator==(const Hello&) const = default;
};

struct Device {
  std::uint32_t id = 0;
  std::string name;
  std::int32_t computeMajor = 0;
  std::int32_t computeMinor = 0;
  std::uint64_t memoryBytes = 0;
  std::int32_t multiprocessors = 0;
  std::int32_t copyEngines = 0;
  bool operator==(const Device&) const = default;
};

struct Lane {
  std::uint32_t id = 0;
  std::uint8_t kind = 0;  ///< LaneKind
  std::int32_t index = 0;
  std::int32_t device = -1;
  std::string name;
  bool operator==(const Lane&) const = default;
};

struct Name {
  std::uint32_t id = 0;
  std::string text;
  bool operator==(const Name&) const = default;
};

/// An op as sent: the trace's Op with wider references (the receiver maps them onto
/// the trace's tables) and absolute CLOCK_MONOTONIC times.
struct Op {
  std::int64_t submit = 0, ready = 0, start = 0, end = 0;
  std::uint64_t bytes = 0;
  std::int32_t batch = -1;
  std::uint32_t correlation = 0;
  std::uint32_t lane = kWireNone;
  std::uint32_t engineLane = kWireNone;
  std::uint32_t name = 0;
  std::int32_t stream = -1;
  std::uint8_t kind = 0;  ///< OpKind
  std::uint8_t flags = 0;
  bool operator==(const Op&) const = default;
};

struct Ops {
  std::vector<Op> ops;
  bool operator==(const Ops&) const = default;
};

struct Note {
  enum Level : std::uint8_t { Info = 0, Warning = 1, Error = 2 };
  std::uint8_t level = Info;
  std::string text;
  bool operator==(const Note&) const = default;
};

struct End {
  std::uint64_t opsSent = 0;
  std::uint64_t recordsDropped = 0;
  std::string reason;
  bool operator==(const End&) const = default;
};

using Message = std::variant<Hello, Device, Lane, Name, Ops, Note, End>;

}  // namespace pipescope::wire
