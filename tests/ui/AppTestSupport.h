#pragma once
// Helpers for the desktop app's tests: a simulator backend choice, waiting on a
// condition with a generous time-out (never a timing assertion), and an isolated
// QSettings location per test.
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <functional>

#include "backend/Backend.h"

namespace pipescope::ui::testing {

inline BackendOptions simulator(double slowdown = 0.0) {
  BackendOptions b;
  b.choice = BackendChoice::Simulator;
  b.simulatorProfile = "h200";
  b.simulatorSlowdown = slowdown;
  return b;
}

/// Runs the built `pipescope` binary headless (offscreen) with `args`; returns its
/// exit code (-1 when it crashed or did not finish in time) and its stderr in `err`.
inline int runGui(const QStringList& args, QString* err, int timeoutMs = 180000) {
  QProcess p;
  auto env = QProcessEnvironment::systemEnvironment();
  env.insert("QT_QPA_PLATFORM", "offscreen");
  p.setProcessEnvironment(env);
  p.start(PIPESCOPE_GUI, args);
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    return -1;
  }
  *err = QString::fromLocal8Bit(p.readAllStandardError());
  return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

/// Processes events until `done` or the time-out; returns `done()`.
inline bool waitFor(const std::function<bool()>& done, int timeoutMs = 60000) {
  QElapsedTimer t;
  t.start();
  while (!done() && t.elapsed() < timeoutMs) QTest::qWait(10);
  return done();
}

/// Points QSettings at a fresh temporary directory for the test's lifetime.
class IsolatedSettings {
 public:
  IsolatedSettings() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("pipescope-tests");
    QCoreApplication::setApplicationName("pipescope-ui-tests");
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir_.path());
  }
  QString path() const { return dir_.path(); }

 private:
  QTemporaryDir dir_;
};

}  // namespace pipescope::ui::testing
