#pragma once
// Streams a growing trace to a native (version 2) file while the run goes on, so a
// crash, a kill or a power cut loses at most the last interval: a background thread
// appends a self-contained chunk of the ops published since the last one (with the
// metadata as of now) and syncs it to the disk at least once a second. The file
// opens from the moment the writer is constructed (its first chunk is written then),
// and loads with everything up to its last complete chunk if cut off (NativeStream.h).
//
// With a bounded live window (--max-ops), the trace keeps in memory only the ops the
// writer has not yet written (TraceStore::retainFrom), so memory stays bounded while
// the file holds the whole run. A regular file is created next to the target and
// renamed over it once its first chunk is on disk; a FIFO or standard output is
// written through (OutputFile.h).
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "trace/Trace.h"

namespace pipescope {

class OutputFile;

struct TraceStreamOptions {
  /// How often a chunk is written and synced (at most a second: what a crash may lose).
  std::chrono::milliseconds interval{500};
  /// false: no background thread; only writeChunk() and finish() write (tests).
  bool background = true;
};

class TraceStreamWriter {
 public:
  using Options = TraceStreamOptions;

  /// Opens `path`, writes the first chunk and starts the background thread. Throws
  /// TraceFileError naming the file when it cannot be written.
  TraceStreamWriter(std::shared_ptr<const Trace> trace, const std::string& path, Options options = {});
  /// Stops the thread. Unless finish() ran, the file is left as written so far: it
  /// opens with everything up to its last chunk, like a file cut off by a crash.
  ~TraceStreamWriter();
  TraceStreamWriter(const TraceStreamWriter&) = delete;
  TraceStreamWriter& operator=(const TraceStreamWriter&) = delete;

  /// After the run ended: writes the remaining ops with the final outcome and the end
  /// marker, and closes the file. Throws TraceFileError (also for an earlier error of
  /// the background thread).
  void finish();
  /// Writes a chunk of what is new now (the background thread calls it; for tests).
  void writeChunk();

  std::uint64_t opsWritten() const;
  std::uint64_t chunksWritten() const;
  /// The background thread's first error; empty while all is well. After an error the
  /// file stops growing (it still opens with what it has) and the run goes on.
  std::string error() const;
  const std::string& path() const { return path_; }

 private:
  void writeLocked(bool final);
  void loop(std::stop_token stop);

  std::shared_ptr<const Trace> trace_;
  const TraceStore& store_;
  std::string path_;
  Options options_;
  std::unique_ptr<OutputFile> out_;
  mutable std::mutex mutex_;  // guards out_ and the counters below
  std::uint64_t next_ = 0;    // global index of the first op not yet written
  std::uint64_t written_ = 0;
  std::uint64_t chunks_ = 0;
  std::uint64_t lost_ = 0;    // ops the window dropped before they were written (never, while retainFrom holds)
  std::string error_;
  bool finished_ = false;
  std::mutex wakeMutex_;
  std::condition_variable_any wake_;
  std::jthread thread_;
};

}  // namespace pipescope
