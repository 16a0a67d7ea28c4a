#pragma once
// The one way pipescope writes an output (trace, converted trace, CSV, JSON, images,
// sweep files, measurements), respecting what is at the path:
// - a regular file (or a new name): written to a temporary file in the same folder,
//   flushed to disk (fsync), renamed over the target, then the folder is synced; the
//   old file's mode (and owner, where permitted) is kept. A failure leaves the old
//   file untouched.
// - a symbolic link: the file it points to is replaced that way; the link stays.
// - a FIFO, a character device (/dev/null, a terminal), "-", /dev/stdout, /dev/stderr
//   or /dev/fd/N: written through as a stream, never replaced.
// - a directory, a block device or a socket: refused with a message saying why.
// Errors are TraceFileError naming the file and the reason.
#include <functional>
#include <memory>
#include <ostream>
#include <string>

namespace pipescope {

enum class OutputKind {
  File,   ///< replaced atomically (temporary file + rename)
  Stream  ///< written through in place (FIFO, character device, standard output)
};

class OutputFile {
 public:
  /// Opens `path` for writing (a FIFO blocks here until a reader opens it).
  explicit OutputFile(const std::string& path);
  /// Discards the temporary file of an output that was never published.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  OutputKind kind() const { return kind_; }
  /// The path as given.
  const std::string& path() const { return path_; }
  /// Where the bytes land: the link's target for a symbolic link, else the path.
  const std::string& resolvedPath() const { return resolved_; }
  std::ostream& stream();

  /// Pushes what was written to the operating system; durable also syncs it to the
  /// disk (regular files). Throws on a write error.
  void flush(bool durable);
  /// A regular file: syncs the temporary file and renames it over the target, so the
  /// target now holds what was written so far; later writes append to it in place
  /// (how a streamed trace is readable while it grows). A stream: flush. Idempotent.
  void publish();
  /// Final: flushes, syncs, publishes if not yet published, and closes. Throws on error.
  void commit();

 private:
  class Buffer;
  [[noreturn]] void fail(const std::string& why, int err) const;
  void discard() noexcept;

  std::string path_;
  std::string resolved_;
  std::string temp_;  // regular files, until published
  OutputKind kind_ = OutputKind::File;
  int fd_ = -1;
  bool ownsFd_ = true;
  bool published_ = false;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::ostream> stream_;
};

/// Writes a whole output through `write` (see OutputFile). On failure (cannot create,
/// write error, `write` throws) a regular target is left untouched and a
/// TraceFileError naming the file and the reason is thrown (or, if `write` threw a
/// TraceFileError or TraceLoadCancelled, that one).
void writeOutputFile(const std::string& path, const std::function<void(std::ostream&)>& write);

/// True for the names that mean standard output ("-", "/dev/stdout").
bool isStandardOutputPath(const std::string& path);

/// Test hook: called with the temporary file's path after the content is written and
/// synced, before the rename; if it throws, the write fails as a disk error would.
/// Pass an empty function to clear.
void setAtomicWriteFaultHook(std::function<void(const std::string& tempPath)> hook);

}  // namespace pipescope
