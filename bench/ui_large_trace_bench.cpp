// A very large trace (100 M ops: a long recording) opened as the desktop app opens a
// .pipescope file: its memory, the time until the timeline can draw it, and the CPU
// time of a zoomed-out pan frame (targets: peak RSS <= 4.5 GB, open <= 25 s, frame
// <= 16 ms CPU).
//
// Two steps, each its own process, so the peak RSS read by the second is the open's:
//   ui_large_trace_bench make FILE [OPS]   simulate OPS ops (default 100 M; the
//                                          multi-stream preset, 10 ops per batch) and save them
//   ui_large_trace_bench open FILE [waits|waits-whole]
//                                          load, index, paint frames, compute the run's
//                                          figures and chart series (and with `waits`, the
//                                          wait causes as the window computes them: by window
//                                          of ops on a trace this large; `waits-whole`, the
//                                          reference: one analysis of every op at once), as
//                                          the window does on open
// The file is the format every build reads, so one file serves as the same-run
// reference for an older build's `open`.
//
// Run offscreen: QT_QPA_PLATFORM=offscreen build/release/bench/ui_large_trace_bench ...
#include <QApplication>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "app/Theme.h"
#include "config/Presets.h"
#include "io/NativeFormat.h"
#include "io/TraceFiles.h"
#include "analysis/WaitAnalysis.h"
#include "analysis/WaitSummary.h"
#include "analysis/WaitWindows.h"
#include "metrics/Metrics.h"
#include "metrics/TimeSeries.h"
#include "sim/DeviceProfile.h"
#include "sim/SimulatorBackend.h"
#include "timeline/LaneIndex.h"
#include "timeline/LaneLayout.h"
#include "timeline/TimelineRenderer.h"
#include "trace/Trace.h"

namespace {

using namespace pipescope;
using namespace pipescope::ui;

constexpr QSize kFrame{1600, 900};  // the timeline of a 1920x1080 window
constexpr int kFrames = 64;

double cpuSeconds(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

double wallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// A /proc/self/status field in bytes ("VmRSS", "VmHWM").
double statusBytes(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string key = std::string(field) + ":";
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::stod(line.substr(key.size())) * 1024.0;
  return 0;
}

// The store's own count of its bytes, where the build has one.
template <typename Store>
double countedBytes(const Store& s) {
  if constexpr (requires { s.memoryBytes(); }) return double(s.memoryBytes());
  else return 0;
}

int make(const std::string& path, std::uint64_t ops) {
  PipelineConfig c = findPreset("multi-stream")->config;
  c.batchCount = int(ops / 10);  // the preset records 10 ops per batch
  Trace trace;
  trace.setConfig(c);
  RunControl control;
  const double w0 = wallSeconds();
  trace.setOutcome(makeSimulatorBackend(*builtinProfile("h200"))->run(c, trace, control));
  const double w1 = wallSeconds();
  saveNativeTrace(trace, path);
  const double w2 = wallSeconds();
  std::printf("made %s: %llu ops, %.1f MB; simulate %.1f s, save %.1f s (wall)\n", path.c_str(),
              (unsigned long long)trace.ops().publishedCount(), double(std::filesystem::file_size(path)) / 1e6,
              w1 - w0, w2 - w1);
  return 0;
}

struct Phase {
  double wall = 0, cpu = 0;
};

template <typename F>
Phase timed(F&& f) {
  const double w0 = wallSeconds(), c0 = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
  f();
  return {wallSeconds() - w0, cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - c0};
}

struct FrameTimes {
  double medianMs = 0, maxMs = 0;
  std::size_t marks = 0;
};

FrameTimes paintFrames(const Trace& trace, const LaneIndex& index, const LaneLayout& layout, std::int64_t span,
                       std::int64_t from0, bool pan) {
  QImage image(kFrame, QImage::Format_ARGB32_Premultiplied);
  TimelineRenderer renderer;
  RenderState s;
  s.trace = &trace;
  s.index = &index;
  s.layout = &layout;
  s.palette = themePalette(Theme::Light);
  s.font = QApplication::font();
  const QRect plot = TimelineRenderer::plotRect(image.rect(), layout, s.font);
  const std::int64_t stepNs = std::max<std::int64_t>(1, span / plot.width() * 3);  // 3 px per frame
  std::vector<double> ms;
  FrameTimes out;
  for (int frame = 0; frame <= kFrames; ++frame) {
    const std::int64_t shift = pan ? frame * stepNs : 0;
    s.axis = TimeAxis(from0 + shift, from0 + shift + span, plot.width());
    const double c0 = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
    QPainter p(&image);
    renderer.paint(p, image.rect(), s);
    p.end();
    if (frame > 0) ms.push_back((cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - c0) * 1e3);  // frame 0 fills the cache
    out.marks = renderer.lastMarksDrawn();
  }
  std::sort(ms.begin(), ms.end());
  out.medianMs = ms[ms.size() / 2];
  out.maxMs = ms.back();
  return out;
}

enum class Waits { None, ByWindow, Whole };

int open(const std::string& path, Waits waitMode) {
  const bool waits = waitMode != Waits::None;
  const double rss0 = statusBytes("VmRSS");
  std::shared_ptr<Trace> trace;
  const Phase load = timed([&] { trace = loadTraceFile(path); });
  const double ops = double(trace->ops().publishedCount());
  const double rssLoaded = statusBytes("VmRSS"), peakLoaded = statusBytes("VmHWM");
  LaneIndex index;
  const Phase indexing = timed([&] { index.update(trace->ops().snapshot()); });
  const double rssIndexed = statusBytes("VmRSS"), peakIndexed = statusBytes("VmHWM");
  const LaneLayout layout =
      layoutLanes(trace->lanes(), LaneGrouping::Both, kFrame.height() - TimelineRenderer::kRulerHeight);
  const std::int64_t first = index.firstNs(), last = index.lastNs();
  const FrameTimes outPan = paintFrames(*trace, index, layout, last - first, first, true);
  const FrameTimes outRepaint = paintFrames(*trace, index, layout, last - first, first, false);
  const FrameTimes inPan = paintFrames(*trace, index, layout, 5'000'000, first + (last - first) / 2, true);
  const double peakFrames = statusBytes("VmHWM");
  // The app also computes the run's figures as it shows an opened trace (last here, so
  // the peaks above are the store's and the index's alone).
  Metrics metrics;
  const Phase figures = timed([&] { metrics = computeMetrics(*trace); });
  const double peakFigures = statusBytes("VmHWM");
  // Then the throughput charts' series, and the wait causes the timeline's overlay shows.
  TimeSeries series;
  const Phase charts = timed([&] { series = computeTimeSeries(*trace, 0, metrics.lastNs); });
  const double peakCharts = statusBytes("VmHWM");
  Phase waitPhase;
  double peakWaits = 0, rssBeforeWaits = statusBytes("VmRSS"), rssAfterWaits = 0;
  std::size_t waitSegments = 0, waitBytes = 0;
  double waitedNs = 0;
  if (waits) {
    waitPhase = timed([&] {
      const TraceView view = trace->ops().snapshot();
      if (waitMode == Waits::Whole) {
        const WaitAnalysis analysis = analyzeWaits(view, trace->lanes());
        waitSegments = analysis.segments().size();
        waitBytes = analysis.memoryBytes();
        waitedNs = summarizeWaits(analysis, view, trace->lanes()).totalWaitNs();
      } else {
        // As the window does: the overlay's analysis around the end of the trace.
        const WaitOverview w = overviewWaits(view, trace->lanes(), view.end());
        waitSegments = w.analysis.segments().size();
        waitBytes = w.analysis.memoryBytes();
        waitedNs = w.summary.totalWaitNs();
      }
    });
    peakWaits = statusBytes("VmHWM");
    rssAfterWaits = statusBytes("VmRSS");
  }

  std::printf("file %s: %.0f ops, %.1f MB\n", path.c_str(), ops, double(std::filesystem::file_size(path)) / 1e6);
  std::printf("| phase | wall s | CPU s |\n| --- | ---: | ---: |\n");
  std::printf("| load (read, check, store) | %.2f | %.2f |\n", load.wall, load.cpu);
  std::printf("| timeline index | %.2f | %.2f |\n", indexing.wall, indexing.cpu);
  std::printf("| open = load + index | %.2f | %.2f |\n", load.wall + indexing.wall, load.cpu + indexing.cpu);
  std::printf("| run figures (computeMetrics) | %.2f | %.2f |\n", figures.wall, figures.cpu);
  std::printf("| chart series (computeTimeSeries, %zu points) | %.2f | %.2f |\n", series.size(), charts.wall, charts.cpu);
  if (waits)
    std::printf("| wait causes (%s; %zu segments kept, %.1f MB; %.6g ns waited) | %.2f | %.2f |\n",
                waitMode == Waits::Whole ? "analyzeWaits + summarizeWaits of every op at once" : "overviewWaits",
                waitSegments, double(waitBytes) / 1e6, waitedNs, waitPhase.wall, waitPhase.cpu);
  std::printf("\n| memory | bytes per op | GB |\n| --- | ---: | ---: |\n");
  std::printf("| trace store, RSS growth over load | %.1f | %.2f |\n", (rssLoaded - rss0) / ops, (rssLoaded - rss0) / 1e9);
  std::printf("| trace store, counted (TraceStore::memoryBytes) | %.1f | %.2f |\n",
              countedBytes(trace->ops()) / ops, countedBytes(trace->ops()) / 1e9);
  std::printf("| timeline index, RSS growth | %.1f | %.2f |\n", (rssIndexed - rssLoaded) / ops,
              (rssIndexed - rssLoaded) / 1e9);
  std::printf("| timeline index, counted (LaneIndex::memoryBytes) | %.1f | %.2f |\n",
              double(index.memoryBytes()) / ops, double(index.memoryBytes()) / 1e9);
  std::printf("| store + index, RSS | %.1f | %.2f |\n", (rssIndexed - rss0) / ops, (rssIndexed - rss0) / 1e9);
  std::printf("| peak RSS after load / index / frames / figures / chart series | | %.2f / %.2f / %.2f / %.2f / %.2f |\n",
              peakLoaded / 1e9, peakIndexed / 1e9, peakFrames / 1e9, peakFigures / 1e9, peakCharts / 1e9);
  if (waits)
    std::printf("| peak RSS after the wait causes (RSS before / after them) | | %.2f (%.2f / %.2f) |\n",
                peakWaits / 1e9, rssBeforeWaits / 1e9, rssAfterWaits / 1e9);
  std::printf("\n| frame (%d frames, CPU ms) | median | max | marks |\n| --- | ---: | ---: | ---: |\n", kFrames);
  std::printf("| zoomed out, pan | %.2f | %.2f | %zu |\n", outPan.medianMs, outPan.maxMs, outPan.marks);
  std::printf("| zoomed out, repaint | %.2f | %.2f | %zu |\n", outRepaint.medianMs, outRepaint.maxMs, outRepaint.marks);
  std::printf("| zoomed in (5 ms), pan | %.2f | %.2f | %zu |\n", inPan.medianMs, inPan.maxMs, inPan.marks);
  std::printf("(ops checked by the metrics: %lld)\n", (long long)metrics.ops);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  const std::string mode = argc > 1 ? argv[1] : "";
  if (argc < 3 || (mode != "make" && mode != "open")) {
    std::fprintf(stderr, "usage: %s make FILE [OPS] | open FILE [waits|waits-whole]\n", argv[0]);
    return 2;
  }
  try {
    if (mode == "make") return make(argv[2], argc > 3 ? std::stoull(argv[3]) : 100'000'000ull);
    QApplication app(argc, argv);
    const std::string waits = argc > 3 ? argv[3] : "";
    return open(argv[2], waits == "waits" ? Waits::ByWindow : waits == "waits-whole" ? Waits::Whole : Waits::None);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
