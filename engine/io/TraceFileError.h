#pragma once
// Errors and progress reporting shared by every trace reader and writer.
#include <atomic>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

namespace pipescope {

/// A file could not be read or written. The message names the file, where in it
/// (byte offset or event index) and what was expected, so a user can act on it.
class TraceFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The user cancelled a load; not an error to report.
class TraceLoadCancelled : public std::runtime_error {
 public:
  TraceLoadCancelled() : std::runtime_error("loading cancelled") {}
};

/// How a long load reports progress and learns it should stop. Both are optional;
/// progress is called from the loading thread with a fraction in [0, 1], at most a
/// few hundred times per file.
struct LoadControl {
  std::function<void(double fraction)> progress;
  const std::atomic<bool>* cancel = nullptr;

  bool cancelled() const { return cancel != nullptr && cancel->load(std::memory_order_relaxed); }
  void report(double fraction) const {
    if (progress) progress(fraction);
  }
  /// Throws TraceLoadCancelled when cancellation was requested.
  void checkCancel() const {
    if (cancelled()) throw TraceLoadCancelled();
  }
};

/// Limits that keep a hostile file from exhausting memory or time.
inline constexpr std::uint64_t kMaxTraceOps = 200'000'000;        ///< ops in one trace
inline constexpr std::uint64_t kMaxJsonTextBytes = 16ull << 30;   ///< decompressed JSON text
inline constexpr std::uint64_t kMaxJsonTokenBytes = 64ull << 20;  ///< one JSON value (a string)
inline constexpr int kMaxJsonDepth = 64;                          ///< nesting of objects/arrays
inline constexpr std::size_t kMaxNameLength = 4096;               ///< op and lane names are cut here

}  // namespace pipescope
