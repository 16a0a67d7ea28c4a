#include "run/FiguresWorker.h"

#include <QMetaObject>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace pipescope::ui {

RunFigures computeRunFigures(const Trace& trace, int maxPoints) {
  RunFigures f;
  f.metrics = computeMetrics(trace);
  // From the first op, not from the run's clock start: a CUDA run over several GPUs
  // sets up NCCL for seconds before its first op, which would stretch the charts'
  // first interval over that setup and draw a ramp across it.
  if (f.metrics.lastNs > f.metrics.firstNs)
    f.series = computeTimeSeries(trace, f.metrics.firstNs, f.metrics.lastNs, maxPoints);
  return f;
}

int figuresIntervalMs(int minIntervalMs, double lastCostMs) {
  const double paced = 4.0 * std::max(0.0, lastCostMs);
  return std::max(minIntervalMs, int(std::min(paced, 60'000.0)));
}

FiguresWorker::FiguresWorker(int maxPoints, QObject* parent) : QObject(parent), maxPoints_(maxPoints) {}

FiguresWorker::~FiguresWorker() {
  // A result posted after this returns is dropped with the object's pending events.
  if (task_.valid()) task_.wait();
}

bool FiguresWorker::request(std::shared_ptr<const Trace> trace) {
  if (busy_ || !trace) return false;
  busy_ = true;
  const std::uint64_t generation = generation_;
  task_ = std::async(std::launch::async, [this, trace = std::move(trace), generation] {
    const auto t0 = std::chrono::steady_clock::now();
    auto figures = std::make_shared<const RunFigures>(computeRunFigures(*trace, maxPoints_));
    const double costMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    QMetaObject::invokeMethod(
        this,
        [this, figures, generation, costMs] {
          busy_ = false;
          lastCostMs_ = costMs;
          if (generation == generation_) emit ready(figures);
        },
        Qt::QueuedConnection);
  });
  return true;
}

}  // namespace pipescope::ui
