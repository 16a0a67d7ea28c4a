#include "sweep/SweepWorker.h"

#include <QMetaObject>

#include "sweep/SweepPrediction.h"

namespace pipescope::ui {

SweepWorker::SweepWorker(QObject* parent) : QObject(parent) {}

SweepWorker::~SweepWorker() {
  cancel();
  join();
}

void SweepWorker::join() {
  if (thread_.joinable()) thread_.join();
}

void SweepWorker::cancel() {
  if (cancel_) cancel_->cancel();
}

bool SweepWorker::start(const SweepJob& job, QString* error) {
  if (running_) {
    if (error) *error = tr("A sweep is still running: cancel it or wait for it to end.");
    return false;
  }
  join();
  if (auto problems = validateSweep(job.spec); !problems.empty()) {
    QStringList lines;
    for (const auto& p : problems) lines << QString::fromStdString(p);
    if (error) *error = lines.join('\n');
    return false;
  }
  BackendOptions options = job.backend;
  options.simulatorSlowdown = 0;  // a sweep measures; it is not for watching
  BackendSelection selection = makeBackend(options);
  if (!selection.backend) {
    if (error) *error = QString::fromStdString(selection.error);
    return false;
  }
  std::unique_ptr<Backend> predictor;
  if (!job.predictProfile.empty()) {
    BackendSelection sim = makeBackend({BackendChoice::Simulator, job.predictProfile, 0.0, 0});
    if (!sim.backend) {
      if (error) *error = tr("simulator prediction: %1").arg(QString::fromStdString(sim.error));
      return false;
    }
    predictor = std::move(sim.backend);
  }

  SweepResult empty;
  empty.spec = job.spec;
  empty.backend = std::string(selection.backend->kind());
  empty.device = selection.backend->describe();
  empty.totalPoints = expandGrid(job.spec).size();
  emit started(empty);

  cancel_ = std::make_unique<SweepCancel>();
  running_ = true;
  // The thread owns the backends; `this` outlives it (the destructor joins).
  thread_ = std::thread([this, spec = job.spec, backend = std::move(selection.backend),
                         predictor = std::move(predictor), cancel = cancel_.get()] {
    const bool variesMemory = spec.memories.size() > 1, variesModel = spec.models.size() > 1;
    auto post = [this](auto&& f) { QMetaObject::invokeMethod(this, std::forward<decltype(f)>(f), Qt::QueuedConnection); };
    auto result = std::make_shared<SweepResult>();
    QString failure;
    try {
      SweepCallbacks cb;
      cb.progress = [&](const SweepProgress& p) {
        SweepStatus s{p.pointsDone, p.totalPoints, {}, false, p.elapsedSec, p.etaSec};
        if (p.point) s.pointLabel = QString::fromStdString(pointLabel(p.point->config, variesMemory, variesModel));
        post([this, s] { emit progressed(s); });
      };
      cb.pointFinished = [&](const SweepPointResult& p) { post([this, p] { emit pointFinished(p); }); };
      *result = runSweep(spec, *backend, cb, cancel);
      if (predictor && !cancel->cancelled()) {
        std::size_t predicted = 0;
        const std::size_t total = result->points.size();
        predictSweep(*result, *predictor, cancel, [&](const SweepPointResult& p) {
          ++predicted;
          SweepStatus s{predicted, total, tr("simulator prediction"), true, result->wallSeconds, -1};
          post([this, p, s] {
            emit pointPredicted(p);
            emit progressed(s);
          });
        });
      }
    } catch (const std::exception& e) {
      failure = QString::fromUtf8(e.what());
    }
    post([this, result, failure] {
      running_ = false;
      emit finished(result, failure);
    });
  });
  return true;
}

}  // namespace pipescope::ui
