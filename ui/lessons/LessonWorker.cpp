#include "lessons/LessonWorker.h"

#include <QMetaObject>

namespace pipescope::ui {

LessonWorker::LessonWorker(QObject* parent) : QObject(parent) {}

LessonWorker::~LessonWorker() {
  // Joins before the QObject goes: no queued call can then reach a dead worker (Qt
  // drops calls queued to a destroyed context object).
  thread_ = std::jthread();
}

bool LessonWorker::start(const Lesson& lesson, LessonRunOptions options) {
  if (running_) return false;
  if (thread_.joinable()) thread_.join();  // the previous measurement has ended
  running_ = true;
  options.progress = [this](const LessonProgress& p) {
    QString text = tr("Measuring run %1 of %2: %3").arg(p.step + 1).arg(p.steps).arg(QString::fromStdString(p.label));
    if (p.reps > 1) text += tr(" (repetition %1 of %2)").arg(p.rep + 1).arg(p.reps);
    QMetaObject::invokeMethod(this, [this, text] { emit progress(text); }, Qt::QueuedConnection);
  };
  thread_ = std::jthread([this, &lesson, options = std::move(options)](std::stop_token stop) {
    auto outcome = std::make_shared<const LessonOutcome>(runLesson(lesson, options, stop));
    QMetaObject::invokeMethod(
        this,
        [this, outcome] {
          running_ = false;
          emit finished(outcome);
        },
        Qt::QueuedConnection);
  });
  return true;
}

void LessonWorker::stop() {
  if (thread_.joinable()) thread_.request_stop();
}

}  // namespace pipescope::ui
