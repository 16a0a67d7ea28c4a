#include "analysis/AnalysisScreenshots.h"

#include <QDockWidget>
#include <QEventLoop>
#include <QTimer>

#include "MainWindow.h"
#include "analysis/Lesson.h"
#include "compare/CompareController.h"
#include "config/Presets.h"
#include "lessons/LessonsPanel.h"
#include "run/RunController.h"
#include "timeline/TimelineView.h"

namespace pipescope::ui {

namespace {

// Runs the event loop until `done` or the time-out.
bool waitUntil(const std::function<bool()>& done, double seconds) {
  QEventLoop loop;
  QTimer poll;
  QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
    if (done()) loop.quit();
  });
  QTimer::singleShot(int(seconds * 1000), &loop, &QEventLoop::quit);
  poll.start(10);
  if (!done()) loop.exec();
  return done();
}

bool runPreset(MainWindow& w, const QString& name, double timeoutSeconds, QString* error) {
  const auto preset = findPreset(name.toStdString());
  if (!preset) {
    *error = QObject::tr("unknown preset '%1'").arg(name);
    return false;
  }
  bool completed = false;
  auto c = QObject::connect(&w, &MainWindow::runCompleted, [&] { completed = true; });
  w.startRun(preset->config);
  const bool ok = waitUntil([&] { return completed; }, timeoutSeconds);
  QObject::disconnect(c);
  if (!ok) *error = w.lastError().isEmpty() ? QObject::tr("run '%1' did not finish").arg(name) : w.lastError();
  return ok;
}

void raiseDock(MainWindow& w, const char* name, int size, Qt::Orientation o) {
  if (auto* d = w.findChild<QDockWidget*>(name)) {
    d->show();
    d->raise();
    w.resizeDocks({d}, {size}, o);
  }
}

}  // namespace

bool playLessonForScreenshot(MainWindow& w, int number, double timeoutSeconds, QString* error) {
  LessonsPanel& panel = w.lessons();
  if (!panel.selectLesson(number)) {
    *error = QObject::tr("--lesson %1: there are lessons 1 to %2").arg(number).arg(builtinLessons().size());
    return false;
  }
  panel.player().setSlowMotion(false);
  panel.choose(builtinLessons()[std::size_t(number - 1)].prediction.answer);
  bool finished = false;
  QObject::connect(&panel, &LessonsPanel::lessonFinished, &w, [&] { finished = true; });
  panel.run();
  if (!waitUntil([&] { return finished || !panel.player().playing(); }, timeoutSeconds) || !finished) {
    *error = QObject::tr("lesson %1 did not finish: %2").arg(number).arg(panel.statusText());
    return false;
  }
  raiseDock(w, "dock.lessons", 540, Qt::Horizontal);
  return true;
}

bool compareForScreenshot(MainWindow& w, const QString& a, const QString& b, double timeoutSeconds, QString* error) {
  if (!runPreset(w, a, timeoutSeconds, error)) return false;
  if (!w.compare().pinCurrent(error)) return false;
  if (!runPreset(w, b, timeoutSeconds, error)) return false;
  raiseDock(w, "dock.compare", 560, Qt::Vertical);
  return true;
}

}  // namespace pipescope::ui
