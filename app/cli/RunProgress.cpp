#include "RunProgress.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <unistd.h>

namespace pipescope::cli {

RunProgress::RunProgress(bool enabled, std::int64_t totalBatches)
    : enabled_(enabled), terminal_(::isatty(STDERR_FILENO) != 0), total_(totalBatches) {}

void RunProgress::update(const Trace& trace) {
  if (!enabled_) return;
  using namespace std::chrono;
  const auto now = steady_clock::now();
  // A terminal line is redrawn in place; a log gets a new line only once a second.
  const auto interval = terminal_ ? milliseconds(200) : milliseconds(1000);
  if (now - start_ < seconds(1) || now - last_ < interval) return;
  last_ = now;
  // Batches done: what the backend reports, else the highest batch index published.
  std::int64_t done = trace.completedBatches();
  const TraceView ops = trace.ops().snapshot();
  if (done == 0 && !ops.empty()) done = std::max<std::int64_t>(0, ops[ops.size() - 1].batch);
  const std::string batches =
      total_ > 0 ? std::to_string(done) + "/" + std::to_string(total_) : std::to_string(done);
  const double elapsed = duration<double>(now - start_).count();
  std::fprintf(stderr, "%s  %s batches, %llu ops recorded, %.1f s%s", terminal_ ? "\r\x1b[K" : "", batches.c_str(),
               static_cast<unsigned long long>(trace.ops().publishedCount()), elapsed,
               terminal_ ? (total_ == 0 ? " (Ctrl-C stops)" : "") : "\n");
  std::fflush(stderr);
  shown_ = true;
}

void RunProgress::finishing(const std::string& path) {
  if (!shown_) return;
  std::fprintf(stderr, "%s  run over; writing the rest of the trace to '%s'...%s", terminal_ ? "\r\x1b[K" : "",
               path.c_str(), terminal_ ? "" : "\n");
  std::fflush(stderr);
}

void RunProgress::finish() {
  if (!shown_) return;
  if (terminal_) std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace pipescope::cli
