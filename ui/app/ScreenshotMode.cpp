#include "app/ScreenshotMode.h"

#include <QBuffer>
#include <QCommandLineParser>
#include <QEventLoop>
#include <QFile>
#include <QPixmap>
#include <QTimer>
#include <stdexcept>

#include "MainWindow.h"
#include "analysis/AnalysisScreenshots.h"
#include "compare/CompareController.h"
#include "config/Presets.h"
#include "controls/ControlPanel.h"
#include "files/TraceFileActions.h"
#include "io/OutputFile.h"
#include "run/RunController.h"
#include "sim/DeviceProfile.h"
#include "timeline/TimelineView.h"

namespace pipescope::ui {

namespace {
QString joined(const std::vector<std::string>& v) {
  QStringList l;
  for (const auto& s : v) l << QString::fromStdString(s);
  return l.join(", ");
}
}  // namespace

void addScreenshotOptions(QCommandLineParser& p) {
  p.addOption({"screenshot", QObject::tr("Run headless, save the window (or --report page) to FILE (.png, or .svg "
                                         "with --report) and exit."),
               "FILE"});
  p.addOption({"open", QObject::tr("Open a trace file (.pipescope, Chrome/Perfetto or PyTorch profiler JSON, plain or "
                                   ".gz) at start; with --screenshot, picture it instead of running a preset."),
               "FILE"});
  p.addOption({"preset", QObject::tr("Preset to run for the screenshot (default multi-stream): %1.")
                             .arg(joined(presetNames())),
               "NAME"});
  p.addOption({"backend", QObject::tr("sim (default) or auto (the CUDA GPU when present)."), "KIND"});
  p.addOption({"profile", QObject::tr("Simulator device profile (default h200): %1.").arg(joined(builtinProfileNames())),
               "NAME"});
  p.addOption({"size", QObject::tr("Window size, WIDTHxHEIGHT (default 1600x1000)."), "WxH"});
  p.addOption({"run-for", QObject::tr("Stop the run after SECONDS instead of running it to completion."), "SECONDS"});
  p.addOption({"report", QObject::tr("Save the one-page report (timeline, legend, charts, metrics) instead of the "
                                     "window.")});
  p.addOption({"lesson", QObject::tr("Play lesson N (1-9) on the simulator, then save the window."), "N"});
  p.addOption({"compare", QObject::tr("Run preset A, pin it, run preset B (the next argument, or A,B), then save the "
                                      "window, or with --report the A/B comparison image."),
               "A"});
  p.addOption({"theme", QObject::tr("light (default, for print) or dark (for screens)."), "NAME"});
}

std::optional<ScreenshotRequest> screenshotRequest(const QCommandLineParser& p) {
  if (!p.isSet("screenshot")) return std::nullopt;
  ScreenshotRequest r;
  r.path = p.value("screenshot");
  if (r.path.isEmpty()) throw std::invalid_argument("--screenshot needs a file name");
  if (p.isSet("preset")) {
    r.preset = p.value("preset");
    if (!findPreset(r.preset.toStdString()))
      throw std::invalid_argument(("--preset " + r.preset + ": unknown preset; known presets: " + joined(presetNames()))
                                      .toStdString());
  }
  if (p.isSet("backend")) {
    const auto choice = parseBackendChoice(p.value("backend").toStdString());
    if (!choice || *choice == BackendChoice::Cuda)
      throw std::invalid_argument(("--backend " + p.value("backend") + ": use sim or auto").toStdString());
    r.backend = *choice;
  }
  if (p.isSet("profile")) r.profile = p.value("profile");
  if (p.isSet("size")) {
    const QStringList wh = p.value("size").toLower().split('x');
    bool okW = false, okH = false;
    const int w = wh.size() == 2 ? wh[0].toInt(&okW) : 0, h = wh.size() == 2 ? wh[1].toInt(&okH) : 0;
    if (!okW || !okH || w < 400 || h < 300 || w > 8000 || h > 8000)
      throw std::invalid_argument(("--size " + p.value("size") + ": expected WIDTHxHEIGHT, 400x300..8000x8000")
                                      .toStdString());
    r.size = QSize(w, h);
  }
  if (p.isSet("run-for")) {
    bool ok = false;
    r.runForSeconds = p.value("run-for").toDouble(&ok);
    if (!ok || r.runForSeconds <= 0 || r.runForSeconds > 3600)
      throw std::invalid_argument(("--run-for " + p.value("run-for") + ": expected seconds, >0..3600").toStdString());
  }
  r.report = p.isSet("report");
  if (p.isSet("lesson")) {
    bool ok = false;
    r.lesson = p.value("lesson").toInt(&ok);
    if (!ok || r.lesson < 1) throw std::invalid_argument(("--lesson " + p.value("lesson") + ": expected 1..9").toStdString());
  }
  if (p.isSet("compare")) {
    const QStringList ab = p.value("compare").split(',');
    r.compareA = ab[0];
    r.compareB = ab.size() > 1 ? ab[1] : p.positionalArguments().value(0);
    for (const QString& name : {r.compareA, r.compareB})
      if (!findPreset(name.toStdString()))
        throw std::invalid_argument(("--compare: '" + name + "' is not a preset; known presets: " + joined(presetNames()))
                                        .toStdString());
  }
  r.openPath = p.value("open");
  if (p.isSet("theme")) {
    const auto theme = parseTheme(p.value("theme"));
    if (!theme) throw std::invalid_argument(("--theme " + p.value("theme") + ": use light or dark").toStdString());
    r.theme = *theme;
  }
  return r;
}

int runScreenshot(const ScreenshotRequest& r) {
  applyTheme(r.theme);
  MainWindow window(MainWindow::Options{false});
  window.resize(r.size);
  window.show();

  ControlPanel& controls = window.controlPanel();
  controls.selectPreset(r.preset);
  BackendOptions backend;
  backend.choice = r.backend;
  backend.simulatorProfile = r.profile.toStdString();
  // --run-for watches the run in real time; otherwise the simulator runs flat out.
  backend.simulatorSlowdown = r.runForSeconds > 0 ? 1.0 : 0.0;
  controls.setBackendOptions(backend);

  QEventLoop loop;
  bool finished = false;
  QObject::connect(&window, &MainWindow::runCompleted, &loop, [&] {
    finished = true;
    loop.quit();
  });
  QObject::connect(&window.runController(), &RunController::errorOccurred, &loop, [&] { loop.quit(); });
  QTimer stopTimer;
  stopTimer.setSingleShot(true);
  QObject::connect(&stopTimer, &QTimer::timeout, &window, &MainWindow::stopRun);
  stopTimer.start(int((r.runForSeconds > 0 ? r.runForSeconds : r.timeoutSeconds) * 1000));

  QString setupError;
  if (!r.openPath.isEmpty()) {
    window.traceFiles().openFile(r.openPath);
    finished = window.traceFiles().waitForLoad(int(r.timeoutSeconds * 1000));
  } else if (r.lesson > 0 || !r.compareA.isEmpty()) {
    finished = r.lesson > 0 ? playLessonForScreenshot(window, r.lesson, r.timeoutSeconds, &setupError)
                            : compareForScreenshot(window, r.compareA, r.compareB, r.timeoutSeconds, &setupError);
  } else {
    window.startRunFromControls();
    if (window.runController().running() || window.currentTrace()) loop.exec();
  }
  if (!finished) {
    qCritical("pipescope: %s", qPrintable(!setupError.isEmpty()          ? setupError
                                          : window.lastError().isEmpty() ? QStringLiteral("the run did not start")
                                                                         : window.lastError()));
    return 1;
  }
  // Let the final refresh and the dock layout settle before grabbing, at the size
  // asked for: the panels' minimum sizes are known only now that they show figures.
  window.resize(r.size);
  window.timeline().fit();
  QEventLoop settle;
  QTimer::singleShot(100, &settle, &QEventLoop::quit);
  settle.exec();
  if (window.size() != r.size && !r.report)
    // The docks cannot shrink further: say so rather than hand back a surprise size.
    qWarning("pipescope: --size %dx%d is below the window's minimum; the screenshot is %dx%d",
             r.size.width(), r.size.height(), window.width(), window.height());

  QString error;
  bool ok = false;
  if (r.report && !r.compareA.isEmpty()) {
    ok = window.compare().exportComparisonImage(r.path, &error);
  } else if (r.report) {
    ok = window.exportReportImage(r.path, &error);
  } else if (!r.path.endsWith(".png", Qt::CaseInsensitive)) {
    error = r.path + ": the window screenshot is a PNG; use a .png name (or --report for .svg)";
  } else {
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    ok = window.grab().save(&buffer, "PNG");
    if (!ok) error = r.path + ": cannot encode the PNG";
    try {
      if (ok)
        writeOutputFile(QFile::encodeName(r.path).toStdString(),
                        [&](std::ostream& out) { out.write(png.constData(), std::streamsize(png.size())); });
    } catch (const std::exception& e) {
      ok = false;
      error = QString::fromStdString(e.what());
    }
  }
  if (!ok) {
    qCritical("pipescope: %s", qPrintable(error));
    return 1;
  }
  if (!window.lastError().isEmpty()) qWarning("pipescope: %s", qPrintable(window.lastError()));
  return 0;
}

}  // namespace pipescope::ui
