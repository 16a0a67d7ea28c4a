#include "RecordProgress.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace pipescope::cli {

namespace {
constexpr std::int64_t kWindowNs = 1'000'000'000;

std::string grouped(std::uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string s;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}
}  // namespace

RecordProgress::RecordProgress(bool enabled, bool terminal) : enabled_(enabled), terminal_(terminal) {}

void RecordProgress::take(const Trace& trace) {
  const TraceView view = trace.ops().snapshot();
  for (std::uint64_t i = std::max(next_, view.begin()); i < view.end(); ++i) {
    const Op& op = view.at(i);
    ++ops_;
    latest_ = std::max(latest_, op.end);
    if (op.kind == OpKind::Kernel || op.kind == OpKind::Memset) gpu_.emplace_back(op.start, op.end);
  }
  next_ = view.end();
  // Work that ended before the window is of no more use (arrival order is nearly end order).
  while (!gpu_.empty() && gpu_.front().second < latest_ - 2 * kWindowNs) gpu_.pop_front();
}

double RecordProgress::kernelsPerSecond() const {
  std::uint64_t n = 0;
  for (const auto& [s, e] : gpu_)
    if (e > latest_ - kWindowNs) ++n;
  return double(n);
}

double RecordProgress::gpuBusy() const {
  const std::int64_t from = latest_ - kWindowNs;
  std::vector<std::pair<std::int64_t, std::int64_t>> v;
  for (const auto& [s, e] : gpu_)
    if (e > from) v.emplace_back(std::max(s, from), std::min(e, latest_));
  std::sort(v.begin(), v.end());
  std::int64_t busy = 0, until = from;
  for (const auto& [s, e] : v) {
    if (e <= until) continue;
    busy += e - std::max(s, until);
    until = e;
  }
  return double(busy) / double(kWindowNs);
}

std::string RecordProgress::line(std::size_t processes, double elapsed) const {
  char buf[256];
  if (processes == 0) {
    std::snprintf(buf, sizeof buf, "recording: waiting for the program to use CUDA, %.1f s", elapsed);
    return buf;
  }
  const std::string more = processes > 1 ? ", " + std::to_string(processes) + " processes" : "";
  std::snprintf(buf, sizeof buf, "recording: %s ops, %s kernels/s, GPU busy %.0f%%%s, %.1f s", grouped(ops_).c_str(),
                grouped(std::uint64_t(kernelsPerSecond())).c_str(), gpuBusy() * 100.0, more.c_str(), elapsed);
  return buf;
}

void RecordProgress::update(const Trace& trace, std::size_t processes) {
  if (!enabled_) return;
  using namespace std::chrono;
  const auto now = steady_clock::now();
  const auto interval = terminal_ ? milliseconds(200) : milliseconds(1000);
  if (now - start_ < seconds(1) || now - last_ < interval) return;
  last_ = now;
  take(trace);
  const std::string text = line(processes, duration<double>(now - start_).count());
  std::fprintf(stderr, "%s%s%s", terminal_ ? "\r\x1b[K" : "", text.c_str(), terminal_ ? "" : "\n");
  std::fflush(stderr);
  shown_ = true;
}

void RecordProgress::finish() {
  if (!shown_) return;
  if (terminal_) std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace pipescope::cli
