// pipescope: the desktop app. With --screenshot it renders a figure headless and
// exits (QT_QPA_PLATFORM=offscreen needs no display).
#include <QApplication>
#include <QCommandLineParser>
#include <cstdio>
#include <stdexcept>

#include "MainWindow.h"
#include "app/ScreenshotMode.h"
#include "files/TraceFileActions.h"
#include "sweep/SweepImageMode.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName("pipescope");
  QApplication::setApplicationName("pipescope");
  QApplication::setApplicationVersion(PIPESCOPE_VERSION);
  QApplication::setWindowIcon(QIcon(":/pipescope/pipescope.svg"));

  QCommandLineParser parser;
  parser.setApplicationDescription("Shows, live, how a CPU-GPU pipeline spends its time.");
  parser.addHelpOption();
  parser.addVersionOption();
  pipescope::ui::addScreenshotOptions(parser);
  pipescope::ui::addSweepImageOptions(parser);
  parser.process(app);
  if (pipescope::ui::wantsSweepImage(parser)) return pipescope::ui::runSweepImage(parser);

  try {
    if (auto request = pipescope::ui::screenshotRequest(parser)) return pipescope::ui::runScreenshot(*request);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "pipescope: %s\n", e.what());
    return 2;
  }

  pipescope::ui::MainWindow window;
  window.show();
  if (parser.isSet("open")) window.traceFiles().openFile(parser.value("open"));
  return app.exec();
}
