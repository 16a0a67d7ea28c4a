// pipescope: the desktop app. With --screenshot it renders a figure headless and
// exits; --help and --version create no GUI application at all, and the figure
// modes need no display (LaunchMode picks the offscreen platform for them); with
// --measure-startup it prints when the first frame was painted and exits.
#include <QApplication>
#include <QCommandLineParser>
#include <cstdio>
#include <stdexcept>

#include "MainWindow.h"
#include "app/AppIcon.h"
#include "app/LaunchMode.h"
#include "app/ScreenshotMode.h"
#include "files/LaunchFile.h"
#include "files/TraceFileActions.h"
#include "sweep/SweepImageMode.h"
#include "app/StartupProbe.h"
#include "app/Theme.h"

namespace {

void nameApplication() {
  QCoreApplication::setOrganizationName("pipescope");
  QCoreApplication::setApplicationName("pipescope");
  QCoreApplication::setApplicationVersion(PIPESCOPE_VERSION);
}

void describeCommandLine(QCommandLineParser& parser) {
  parser.setApplicationDescription("Shows, live, how a CPU-GPU pipeline spends its time.");
  parser.addHelpOption();
  parser.addVersionOption();
  pipescope::ui::addScreenshotOptions(parser);
  pipescope::ui::addSweepImageOptions(parser);
  parser.addOption({"measure-startup", "Print the time from start to the first painted frame, then exit."});
  pipescope::ui::files::addLaunchFileArgument(parser);
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t mainStartNs = pipescope::ui::StartupProbe::monotonicNs();
  if (pipescope::ui::printsTextOnly(argc, argv)) {
    QCoreApplication app(argc, argv);
    nameApplication();
    QCommandLineParser parser;
    describeCommandLine(parser);
    parser.process(app);  // prints the help or the version and exits
    return 0;
  }
  pipescope::ui::selectHeadlessPlatform(argc, argv);  // before QApplication loads the platform plugin
  QApplication app(argc, argv);
  nameApplication();
  QGuiApplication::setDesktopFileName("pipescope");  // Wayland: matches resources/pipescope.desktop
  QApplication::setWindowIcon(pipescope::ui::appIcon());

  QCommandLineParser parser;
  describeCommandLine(parser);
  parser.process(app);
  if (pipescope::ui::wantsSweepImage(parser)) return pipescope::ui::runSweepImage(parser);

  try {
    if (auto request = pipescope::ui::screenshotRequest(parser)) return pipescope::ui::runScreenshot(*request);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "pipescope: %s\n", e.what());
    return 2;
  }

  pipescope::ui::applyTheme(pipescope::ui::Theme::Light);  // the saved theme, if any, follows in MainWindow
  pipescope::ui::MainWindow window;
  if (parser.isSet("measure-startup")) new pipescope::ui::StartupProbe(&window, mainStartNs);
  window.show();
  // `pipescope FILE`, as file managers and the .desktop entry's %f pass it.
  if (const QString file = pipescope::ui::files::launchFile(parser); !file.isEmpty()) window.traceFiles().openFile(file);
  return app.exec();
}
