// pipescope: the desktop app. With --screenshot it renders a figure headless and
// exits; --help, --version and the figure modes need no display (LaunchMode picks
// the offscreen platform for them); with --measure-startup it prints when the first
// frame was painted and exits.
#include <QApplication>
#include <QCommandLineParser>
#include <cstdio>
#include <stdexcept>

#include "MainWindow.h"
#include "app/AppIcon.h"
#include "app/LaunchMode.h"
#include "app/PresentationMode.h"
#include "app/ScreenshotMode.h"
#include "files/LaunchFile.h"
#include "files/TraceFileActions.h"
#include "sweep/SweepImageMode.h"
#include "app/StartupProbe.h"
#include "app/Theme.h"

int main(int argc, char** argv) {
  const std::int64_t mainStartNs = pipescope::ui::StartupProbe::monotonicNs();
  pipescope::ui::selectHeadlessPlatform(argc, argv);  // before QApplication loads the platform plugin
  QApplication app(argc, argv);
  QApplication::setOrganizationName("pipescope");
  QApplication::setApplicationName("pipescope");
  QApplication::setApplicationVersion(PIPESCOPE_VERSION);
  QGuiApplication::setDesktopFileName("pipescope");  // Wayland: matches resources/pipescope.desktop
  QApplication::setWindowIcon(pipescope::ui::appIcon());

  QCommandLineParser parser;
  parser.setApplicationDescription("Shows, live, how a CPU-GPU pipeline spends its time.");
  parser.addHelpOption();
  parser.addVersionOption();
  pipescope::ui::addScreenshotOptions(parser);
  pipescope::ui::addSweepImageOptions(parser);
  parser.addOption({"measure-startup", "Print the time from start to the first painted frame, then exit."});
  parser.addOption({"presentation",
                    "Start in presentation mode, for a projector: full screen, large text, the timeline, the limits "
                    "and one chart (PageDown/PageUp step a lesson, Esc leaves)."});
  pipescope::ui::files::addLaunchFileArgument(parser);
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
  if (parser.isSet("presentation")) window.presentation().enter();
  // `pipescope FILE`, as file managers and the .desktop entry's %f pass it.
  if (const QString file = pipescope::ui::files::launchFile(parser); !file.isEmpty()) window.traceFiles().openFile(file);
  return app.exec();
}
