#include "analysis/WaitAnalysisModel.h"

#include <QMetaObject>

namespace pipescope::ui {

namespace {

std::shared_ptr<const WaitAnalysisResult> compute(TraceView ops, std::vector<Lane> lanes, std::uint64_t focusOp,
                                                  const WaitWindowing& windowing) {
  auto r = std::make_shared<WaitAnalysisResult>();
  WaitOverview o = overviewWaits(ops, lanes, focusOp, windowing);
  r->analysis = std::move(o.analysis);
  r->summary = std::move(o.summary);
  for (const std::string& s : describeSummary(r->summary)) r->sentences << QString::fromStdString(s);
  r->ops = std::move(ops);
  r->lanes = std::move(lanes);
  return r;
}

// The first op (in the store's order) that starts at or after `ns`: traces are
// recorded and imported in about start order, so a binary search finds the ops on screen.
std::uint64_t opAtTime(const TraceView& ops, std::int64_t ns) {
  std::uint64_t lo = ops.begin(), hi = ops.end();
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (ops.at(mid).start < ns)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace

QString WaitAnalysisResult::describe(std::uint64_t globalIndex) const {
  if (!analysis.covers(globalIndex) || globalIndex < ops.begin() || globalIndex >= ops.end()) return {};
  return QString::fromStdString(describeWait(analysis, ops, lanes, globalIndex));
}

WaitAnalysisModel::WaitAnalysisModel(QObject* parent) : QObject(parent) {}

WaitAnalysisModel::~WaitAnalysisModel() {
  if (worker_.joinable()) worker_.join();  // before the members the worker's result refers to go
}

void WaitAnalysisModel::setTrace(std::shared_ptr<const Trace> trace) {
  trace_ = std::move(trace);
  ++generation_;
  analysedEnd_ = analysedBegin_ = 0;
  pending_ = focusPending_ = false;
  focusOp_ = kNewest;
  result_.reset();
  emit updated();
  refresh();
}

void WaitAnalysisModel::refresh() {
  if (!trace_) return;
  const std::uint64_t end = trace_->ops().publishedCount();
  if (end == analysedEnd_ && result_) return;
  if (busy()) {
    pending_ = true;  // picked up when the worker reports
    return;
  }
  TraceView ops = trace_->ops().snapshot();
  if (ops.end() == analysedEnd_ && ops.begin() == analysedBegin_ && result_) return;
  analysedEnd_ = ops.end();
  analysedBegin_ = ops.begin();
  analyse(std::move(ops), trace_->lanes());
}

void WaitAnalysisModel::analyse(TraceView ops, std::vector<Lane> lanes) {
  if (ops.size() < syncLimit_) {
    adopt(compute(std::move(ops), std::move(lanes), focusOp_, windowing_), generation_);
    return;
  }
  runOnWorker([ops = std::move(ops), lanes = std::move(lanes), focus = focusOp_, w = windowing_]() mutable {
    return compute(std::move(ops), std::move(lanes), focus, w);
  });
}

void WaitAnalysisModel::showTime(std::int64_t fromNs, std::int64_t toNs) {
  if (!result_ || result_->ops.size() <= windowing_.wholeTraceOps) return;
  const TraceView& ops = result_->ops;
  const std::uint64_t from = opAtTime(ops, fromNs), to = std::max(from, opAtTime(ops, toNs));
  const WaitAnalysis& a = result_->analysis;
  if (from >= a.coveredBegin() && to <= a.coveredEnd()) return;  // on screen and covered
  // Else the window around the middle of the range, unless that is the one held (a
  // range wider than a window).
  const std::uint64_t focus = from + (to - from) / 2;
  if (waitWindowAround(ops, focus, windowing_) == std::make_pair(a.coveredBegin(), a.coveredEnd())) return;
  focusOp_ = focus;
  if (busy()) {
    focusPending_ = true;
    return;
  }
  refocus();
}

void WaitAnalysisModel::refocus() {
  // The summary and sentences stay; only the window's analysis is made again.
  runOnWorker([previous = result_, focus = focusOp_, w = windowing_] {
    auto r = std::make_shared<WaitAnalysisResult>(WaitAnalysisResult{previous->ops, previous->lanes, {},
                                                                      previous->summary, previous->sentences});
    r->analysis = analyzeWaitsAround(r->ops, r->lanes, focus, w);
    return std::shared_ptr<const WaitAnalysisResult>(std::move(r));
  });
}

template <typename Compute>
void WaitAnalysisModel::runOnWorker(Compute compute) {
  if (worker_.joinable()) worker_.join();  // finished: busy() was false
  workerDone_ = false;
  const std::uint64_t generation = generation_;
  worker_ = std::jthread([this, compute = std::move(compute), generation]() mutable {
    auto r = compute();
    workerDone_ = true;  // before the call: adopt() may start the next worker
    // Queued: adopt() runs on the UI thread. The destructor joins this thread first,
    // and a QObject drops its pending calls when it dies.
    QMetaObject::invokeMethod(
        this, [this, r = std::move(r), generation]() mutable { adopt(std::move(r), generation); },
        Qt::QueuedConnection);
  });
}

void WaitAnalysisModel::adopt(std::shared_ptr<const WaitAnalysisResult> result, std::uint64_t generation) {
  if (generation == generation_) {  // else: an old trace's late result
    result_ = std::move(result);
    emit updated();
  }
  if (pending_) {
    pending_ = focusPending_ = false;  // the new analysis uses the latest focus
    refresh();
  } else if (focusPending_ && generation == generation_ && result_) {
    focusPending_ = false;
    refocus();
  }
}

}  // namespace pipescope::ui
