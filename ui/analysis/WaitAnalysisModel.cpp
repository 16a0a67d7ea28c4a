#include "analysis/WaitAnalysisModel.h"

#include <QMetaObject>

namespace pipescope::ui {

namespace {

std::shared_ptr<const WaitAnalysisResult> compute(TraceView ops, std::vector<Lane> lanes) {
  auto r = std::make_shared<WaitAnalysisResult>();
  r->analysis = analyzeWaits(ops, lanes);
  r->summary = summarizeWaits(r->analysis, ops, lanes);
  for (const std::string& s : describeSummary(r->summary)) r->sentences << QString::fromStdString(s);
  r->ops = std::move(ops);
  r->lanes = std::move(lanes);
  return r;
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
  pending_ = false;
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
    adopt(compute(std::move(ops), std::move(lanes)), generation_);
    return;
  }
  if (worker_.joinable()) worker_.join();  // finished: busy() was false
  workerDone_ = false;
  const std::uint64_t generation = generation_;
  worker_ = std::jthread([this, ops = std::move(ops), lanes = std::move(lanes), generation]() mutable {
    auto r = compute(std::move(ops), std::move(lanes));
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
    pending_ = false;
    refresh();
  }
}

}  // namespace pipescope::ui
