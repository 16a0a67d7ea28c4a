// What the wait-cause overlay adds to painting the timeline: a 1600x900 timeline of
// a ~1M-op trace (multi-stream preset, 100k batches, streams and engines), painted
// with and without the overlay, zoomed out to the whole run (folded) and zoomed in
// to 1 % of it. The reference in the same run is the timeline without the overlay,
// so the figure that travels between machines is the ratio.
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <cstdlib>

#include "analysis/SimulatedRun.h"
#include "analysis/WaitAnalysisModel.h"
#include "analysis/WaitCauseOverlay.h"
#include "config/Presets.h"
#include "sim/DeviceProfile.h"
#include "timeline/TimelineView.h"

namespace {

using namespace pipescope;
using namespace pipescope::ui;

struct Scene {
  SimulatedRun run;
  WaitAnalysisModel model;
  WaitCauseOverlay overlay{model};
  TimelineView view;
  QImage image{1600, 900, QImage::Format_ARGB32_Premultiplied};
  Scene() {
    PipelineConfig c = findPreset("multi-stream")->config;
    c.batchCount = 100'000;
    run = simulate(c, *builtinProfile("h200"));
    model.setSyncLimit(~0ull);  // analyse here, once
    model.setTrace(run.trace);
    view.resize(1600, 900);
    view.setTrace(run.trace);
    view.setGrouping(LaneGrouping::Both);
  }
};

Scene& scene() {
  static Scene s;
  return s;
}

void paint(benchmark::State& state, bool overlay, double visibleFraction) {
  Scene& s = scene();
  s.view.setOverlay(overlay ? &s.overlay : nullptr);
  const std::int64_t end = s.run.metrics.lastNs;
  // Zoomed in: a window in the middle of the run.
  const auto span = std::int64_t(double(end) * visibleFraction);
  s.view.setVisibleRange(end / 2, end / 2 + span);
  for (auto _ : state) {
    QPainter p(&s.image);
    s.view.renderTo(p, s.image.rect());
  }
  state.counters["ops"] = double(s.run.trace->ops().publishedCount());
}

void BM_TimelineWhole(benchmark::State& st) { paint(st, false, 1.0); }
void BM_TimelineWholeWithWaits(benchmark::State& st) { paint(st, true, 1.0); }
void BM_Timeline1Percent(benchmark::State& st) { paint(st, false, 0.01); }
void BM_Timeline1PercentWithWaits(benchmark::State& st) { paint(st, true, 0.01); }
BENCHMARK(BM_TimelineWhole)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TimelineWholeWithWaits)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Timeline1Percent)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Timeline1PercentWithWaits)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  if (std::getenv("QT_QPA_PLATFORM") == nullptr) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
