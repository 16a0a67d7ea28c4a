// Timeline paint time with 1 M and 10 M ops, fully zoomed out and zoomed in, on the
// software rasteriser of the offscreen platform (target: at most 16 ms per frame),
// and the memory each op costs (the TraceStore's Op plus the per-lane index).
//
// The traces come from the simulator (multi-stream preset shape: 4 streams, async,
// pinned), so lanes, overlaps and op widths are those of a real run. Each frame of
// the "pan" cases shifts the view by a few pixels, so the per-lane mark cache
// misses every frame (a drag or a live view); the "repaint" cases paint the same
// view again (hover, tooltip) and show what the cache saves.
//
// Run offscreen: QT_QPA_PLATFORM=offscreen build/release/bench/ui_timeline_paint_bench
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <unistd.h>

#include "app/Theme.h"
#include "config/Presets.h"
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

std::size_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * std::size_t(sysconf(_SC_PAGESIZE));
}

struct Loaded {
  std::shared_ptr<Trace> trace;
  LaneIndex index;
  LaneLayout layout;
  std::uint64_t ops = 0;
  double storeBytesPerOp = 0;       // RSS delta over the simulation / ops
  double indexBytesPerOp = 0;       // RSS delta over the index build / ops
  double indexCountedPerOp = 0;     // LaneIndex::memoryBytes() / ops
  double indexBuildMs = 0;
};

// One trace per size, built once (10 M ops take a few seconds to simulate).
Loaded& loaded(std::uint64_t wantOps) {
  static std::map<std::uint64_t, std::unique_ptr<Loaded>> cache;
  auto& slot = cache[wantOps];
  if (slot) return *slot;
  slot = std::make_unique<Loaded>();
  Loaded& l = *slot;
  PipelineConfig c = findPreset("multi-stream")->config;
  c.batchCount = int(wantOps / 10);  // the preset records 10 ops per batch
  const std::size_t rss0 = residentBytes();
  l.trace = std::make_shared<Trace>();
  l.trace->setConfig(c);
  RunControl control;
  makeSimulatorBackend(*builtinProfile("h200"))->run(c, *l.trace, control);
  l.ops = l.trace->ops().publishedCount();
  const std::size_t rss1 = residentBytes();
  const auto t0 = std::chrono::steady_clock::now();
  l.index.update(l.trace->ops().snapshot());
  const auto t1 = std::chrono::steady_clock::now();
  const std::size_t rss2 = residentBytes();
  l.storeBytesPerOp = double(rss1 - rss0) / double(l.ops);
  l.indexBytesPerOp = double(rss2 - rss1) / double(l.ops);
  l.indexCountedPerOp = double(l.index.memoryBytes()) / double(l.ops);
  l.indexBuildMs = std::chrono::duration<double, std::milli>(t1 - t0).count();
  l.layout = layoutLanes(l.trace->lanes(), LaneGrouping::Both, kFrame.height() - TimelineRenderer::kRulerHeight);
  return l;
}

enum class Zoom { Out, In };
enum class Motion { Pan, Repaint };

void paintFrames(benchmark::State& state, Zoom zoom, Motion motion) {
  Loaded& l = loaded(std::uint64_t(state.range(0)));
  QImage image(kFrame, QImage::Format_ARGB32_Premultiplied);
  TimelineRenderer renderer;
  RenderState s;
  s.trace = l.trace.get();
  s.index = &l.index;
  s.layout = &l.layout;
  s.palette = themePalette(Theme::Light);
  s.font = QApplication::font();
  const QRect plot = TimelineRenderer::plotRect(image.rect(), l.layout, s.font);
  const std::int64_t first = l.index.firstNs(), last = l.index.lastNs();
  // Zoomed in: 5 ms around the middle, a few batches, ops wide enough for labels.
  const std::int64_t span = zoom == Zoom::Out ? last - first : 5'000'000;
  const std::int64_t from0 = zoom == Zoom::Out ? first : first + (last - first) / 2;
  const std::int64_t stepNs = std::max<std::int64_t>(1, span / plot.width() * 3);  // 3 px per frame
  std::int64_t frame = 0;
  std::size_t marks = 0;
  for (auto _ : state) {
    const std::int64_t shift = motion == Motion::Pan ? (frame++ % 64) * stepNs : 0;
    s.axis = TimeAxis(from0 + shift, from0 + shift + span, plot.width());
    QPainter p(&image);
    renderer.paint(p, image.rect(), s);
    p.end();
    marks = renderer.lastMarksDrawn();
    benchmark::DoNotOptimize(image.constBits());
  }
  state.counters["ops"] = double(l.ops);
  state.counters["marks_drawn"] = double(marks);
  state.counters["store_B_per_op_rss"] = l.storeBytesPerOp;
  state.counters["index_B_per_op_rss"] = l.indexBytesPerOp;
  state.counters["index_B_per_op_counted"] = l.indexCountedPerOp;
  state.counters["index_build_ms"] = l.indexBuildMs;
}

void BM_PaintZoomedOutPan(benchmark::State& s) { paintFrames(s, Zoom::Out, Motion::Pan); }
void BM_PaintZoomedInPan(benchmark::State& s) { paintFrames(s, Zoom::In, Motion::Pan); }
void BM_PaintZoomedOutRepaint(benchmark::State& s) { paintFrames(s, Zoom::Out, Motion::Repaint); }
void BM_PaintZoomedInRepaint(benchmark::State& s) { paintFrames(s, Zoom::In, Motion::Repaint); }

// Same-run reference: filling the frame with one colour, the floor of any frame.
void BM_ReferenceFillFrame(benchmark::State& state) {
  QImage image(kFrame, QImage::Format_ARGB32_Premultiplied);
  for (auto _ : state) {
    QPainter p(&image);
    p.fillRect(image.rect(), Qt::white);
    p.end();
    benchmark::DoNotOptimize(image.constBits());
  }
}

BENCHMARK(BM_PaintZoomedOutPan)->Arg(1'000'000)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PaintZoomedInPan)->Arg(1'000'000)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PaintZoomedOutRepaint)->Arg(1'000'000)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PaintZoomedInRepaint)->Arg(1'000'000)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReferenceFillFrame)->Unit(benchmark::kMillisecond);

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
