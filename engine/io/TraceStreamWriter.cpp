#include "io/TraceStreamWriter.h"

#include "io/NativeStream.h"
#include "io/OutputFile.h"
#include "io/TraceFileError.h"

namespace pipescope {

TraceStreamWriter::TraceStreamWriter(std::shared_ptr<const Trace> trace, const std::string& path, Options options)
    : trace_(std::move(trace)), store_(trace_->ops()), path_(path), options_(options) {
  if (options_.interval > std::chrono::seconds(1) || options_.interval <= std::chrono::milliseconds(0))
    options_.interval = std::chrono::seconds(1);
  next_ = store_.snapshot().begin();
  store_.retainFrom(next_);
  try {
    out_ = std::make_unique<OutputFile>(path);
    std::lock_guard lock(mutex_);
    const std::string head = native::fileHead();
    out_->stream().write(head.data(), std::streamsize(head.size()));
    writeLocked(false);
    // From here on the path holds a file that opens (an empty run so far).
    out_->publish();
  } catch (...) {
    store_.retainFrom(TraceStore::kRetainNone);
    throw;
  }
  if (options_.background) thread_ = std::jthread([this](std::stop_token stop) { loop(stop); });
}

TraceStreamWriter::~TraceStreamWriter() {
  thread_.request_stop();
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  store_.retainFrom(TraceStore::kRetainNone);
  // An unfinished file is left as it is: published, it opens up to its last chunk.
  if (out_ && out_->kind() == OutputKind::File) {
    try {
      std::lock_guard lock(mutex_);
      if (!finished_ && error_.empty()) out_->flush(true);
    } catch (const std::exception&) {
    }
  }
}

void TraceStreamWriter::loop(std::stop_token stop) {
  while (!stop.stop_requested()) {
    {
      std::unique_lock lock(wakeMutex_);
      wake_.wait_for(lock, stop, options_.interval, [] { return false; });
    }
    if (stop.stop_requested()) break;
    writeChunk();
  }
}

void TraceStreamWriter::writeChunk() {
  std::lock_guard lock(mutex_);
  if (finished_ || !error_.empty()) return;
  try {
    writeLocked(false);
  } catch (const std::exception& e) {
    error_ = e.what();
    store_.retainFrom(TraceStore::kRetainNone);  // nothing more will be written: let the window move
  }
}

void TraceStreamWriter::writeLocked(bool final) {
  const TraceView ops = store_.snapshot();
  if (ops.begin() > next_) {
    lost_ += ops.begin() - next_;
    next_ = ops.begin();
  }
  // A quiet interval writes nothing (the previous chunk already holds the metadata),
  // except for the first chunk and the last one, which carries the final outcome.
  if (ops.end() == next_ && chunks_ > 0 && !final) return;
  const std::string chunk = native::chunk(*trace_, ops, next_, ops.end(), written_);
  out_->stream().write(chunk.data(), std::streamsize(chunk.size()));
  if (final) out_->stream().write(native::kEndTag.data(), std::streamsize(native::kEndTag.size()));
  out_->flush(/*durable=*/true);
  written_ += ops.end() - next_;
  next_ = ops.end();
  ++chunks_;
  store_.retainFrom(next_);
}

void TraceStreamWriter::finish() {
  thread_.request_stop();
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mutex_);
  if (finished_) return;
  if (!error_.empty()) throw TraceFileError(error_);
  finished_ = true;
  writeLocked(true);
  out_->commit();
  store_.retainFrom(TraceStore::kRetainNone);
}

std::uint64_t TraceStreamWriter::opsWritten() const {
  std::lock_guard lock(mutex_);
  return written_;
}

std::uint64_t TraceStreamWriter::chunksWritten() const {
  std::lock_guard lock(mutex_);
  return chunks_;
}

std::string TraceStreamWriter::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

}  // namespace pipescope
