// A live run in the real window: while the simulator records at least 100 k ops/s
// (in real time), does the timeline keep painting at 30 frames/s or more, and does
// an op appear on screen within 100 ms of being recorded?
//
// The main window runs a 4-stream pipeline with small batches on the simulator at
// real-time pace (slow motion 1x) for a few seconds, following live. An event
// filter counts the timeline's paint events and notes, per frame, how many ops the
// painted index held; a sampler thread notes every 0.5 ms how many ops the engine
// had published. An op's latency is the time from the sample that first counts it
// as published to the first frame painted with it (publication happens per batch,
// a few tens of microseconds after the op is recorded).
//
// Arguments: the visible span the view follows with, in ms, and the GPUs. Span 0:
// the span follow live picks itself (FollowWindow: the newest few batches, what a
// new run shows); 100 ms and 2000 ms (reached by zooming out while following, as a
// user would) show tens and hundreds of thousands of ops. GPUs 1: the one-GPU run
// above, the reference; GPUs 4: 4 simulated GPUs x 8 streams, data parallel with a
// bucketed all-reduce (4 buckets of 1 MiB per batch): 4 groups of lanes, each GPU
// with its streams, engines and NCCL stream, and the communicator's lane. It records
// about three times the reference's ops per second: the per-batch all-reduces, not
// the batch size, set its pace.
//
// Run offscreen: QT_QPA_PLATFORM=offscreen build/release/bench/ui_live_bench
// (one mode: --benchmark_filter='span_ms:2000/gpus:4').
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QEventLoop>
#include <QTimer>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "MainWindow.h"
#include "config/Presets.h"
#include "controls/ControlPanel.h"
#include "run/RunController.h"
#include "timeline/TimelineView.h"

namespace {

using namespace pipescope;
using namespace pipescope::ui;
using Clock = std::chrono::steady_clock;

constexpr double kRunSeconds = 4.0;
constexpr double kWarmupSeconds = 0.5;  // the first frames lay out the window

// 4 streams, batches of 4 x 512 KiB: about 45 us per copy on the h200 profile, so
// the pipeline completes a batch every ~50 us: ~20 k batches/s, ~200 k ops/s.
PipelineConfig liveConfig(int gpus) {
  PipelineConfig c = findPreset("multi-stream")->config;
  c.batchSamples = 4;
  c.batchCount = 0;  // until stopped
  if (gpus > 1) {
    for (int g = 0; g < gpus; ++g) c.devices.push_back(g);
    c.streams = 8;
    c.parallel = ParallelMode::Data;
    c.allreduceBytes = 4ull << 20;
    c.buckets = 4;
  }
  return c;
}

struct FrameLog : QObject {
  const TimelineView* view = nullptr;
  std::vector<std::pair<Clock::time_point, std::uint64_t>> frames;  // (paint time, ops indexed)
  bool eventFilter(QObject* watched, QEvent* e) override {
    if (watched == view && e->type() == QEvent::Paint) {
      frames.emplace_back(Clock::now(), view->laneIndex().view().end());
    }
    return false;
  }
};

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, std::size_t(q * double(v.size() - 1) + 0.5))];
}

void BM_LiveRun(benchmark::State& state) {
  const double spanMs = double(state.range(0));
  const int gpus = int(state.range(1));
  double fps = 0, opsPerSec = 0, p50 = 0, p95 = 0, pmax = 0, frames = 0, spanNs = 0;
  for (auto _ : state) {
    MainWindow window(MainWindow::Options{false});
    window.resize(1600, 1000);
    window.show();
    BackendOptions backend;
    backend.choice = BackendChoice::Simulator;
    backend.simulatorProfile = "h200";
    backend.simulatorSlowdown = 1.0;
    window.controlPanel().setBackendOptions(backend);

    FrameLog log;
    log.view = &window.timeline();
    log.frames.reserve(4096);
    window.timeline().installEventFilter(&log);

    window.startRun(liveConfig(gpus));
    if (!window.runController().running()) {
      state.SkipWithError("the run did not start");
      return;
    }
    auto trace = window.currentTrace();
    window.timeline().setFollowLive(true);
    if (spanMs > 0) {
      // Zoom out while following until the view spans spanMs: the pace must be
      // known first (a few batches), as the follow window scales from it.
      QEventLoop settle;
      QTimer::singleShot(200, &settle, &QEventLoop::quit);
      settle.exec();
      for (int i = 0; i < 80 && double(window.timeline().axis().span()) < spanMs * 1e6; ++i) window.timeline().zoomOut();
    }

    // Publication log: (time, published count), every 0.5 ms.
    std::vector<std::pair<Clock::time_point, std::uint64_t>> published;
    published.reserve(std::size_t(kRunSeconds * 2000 * 1.5) + 1000);
    std::atomic<bool> sampling{true};
    std::thread sampler([&] {
      while (sampling.load(std::memory_order_relaxed)) {
        published.emplace_back(Clock::now(), trace->ops().publishedCount());
        std::this_thread::sleep_for(std::chrono::microseconds(500));
      }
    });

    QEventLoop loop;
    QTimer::singleShot(int(kRunSeconds * 1000), &loop, &QEventLoop::quit);
    loop.exec();
    sampling = false;
    sampler.join();
    spanNs = double(window.timeline().axis().span());
    window.stopRun();
    QEventLoop drain;
    QTimer::singleShot(100, &drain, &QEventLoop::quit);
    drain.exec();

    // Frames per second and ops per second over the measured window.
    const Clock::time_point t0 = published.front().first + std::chrono::milliseconds(int(kWarmupSeconds * 1000));
    const Clock::time_point t1 = published.back().first;
    const double seconds = std::chrono::duration<double>(t1 - t0).count();
    std::size_t framesIn = 0;
    for (const auto& f : log.frames) framesIn += f.first >= t0 && f.first <= t1;
    auto publishedAt = [&](Clock::time_point t) {
      auto it = std::upper_bound(published.begin(), published.end(), t,
                                 [](Clock::time_point x, const auto& s) { return x < s.first; });
      return it == published.begin() ? std::uint64_t(0) : std::prev(it)->second;
    };
    fps = double(framesIn) / seconds;
    opsPerSec = double(publishedAt(t1) - publishedAt(t0)) / seconds;
    frames = double(framesIn);

    // Per-op latency, publication sample -> first frame that indexed it, for ops
    // published in the measured window (two pointers over both logs).
    std::vector<double> latencies;
    std::size_t f = 0;
    for (std::size_t i = 1; i < published.size(); ++i) {
      if (published[i].first < t0 || published[i].first > t1) continue;
      const std::uint64_t firstNew = published[i - 1].second, lastNew = published[i].second;
      if (lastNew == firstNew) continue;
      while (f < log.frames.size() && (log.frames[f].first < published[i].first || log.frames[f].second < lastNew)) ++f;
      if (f == log.frames.size()) break;  // published after the last frame: not measured
      const double ms = std::chrono::duration<double, std::milli>(log.frames[f].first - published[i].first).count();
      latencies.insert(latencies.end(), std::size_t(lastNew - firstNew), ms);
    }
    p50 = percentile(latencies, 0.5);
    p95 = percentile(latencies, 0.95);
    pmax = latencies.empty() ? 0 : *std::max_element(latencies.begin(), latencies.end());
  }
  state.counters["frames_per_s"] = fps;
  state.counters["ops_per_s"] = opsPerSec;
  state.counters["latency_p50_ms"] = p50;
  state.counters["latency_p95_ms"] = p95;
  state.counters["latency_max_ms"] = pmax;
  state.counters["frames"] = frames;
  state.counters["span_ms"] = spanNs / 1e6;
}
// The one-GPU rows (the reference), then the same spans on 4 GPUs, in one run.
BENCHMARK(BM_LiveRun)
    ->ArgNames({"span_ms", "gpus"})
    ->ArgsProduct({{0, 100, 2000}, {1, 4}})
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
