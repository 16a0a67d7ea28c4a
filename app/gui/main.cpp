// pipescope: the desktop app. With --screenshot it renders a figure headless and
// exits; --help and --version create no GUI application at all, and the figure
// modes need no display (LaunchMode picks the offscreen platform for them); with
// --measure-startup it prints when the first frame was painted and exits. A stop
// signal (SIGTERM, SIGHUP, Ctrl-C) closes the window as the user would and exits with
// 128 + its number. `pipescope record [--] PROGRAM ...` opens the window recording
// that program.
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
#include "recording/RecordActions.h"
#include "recording/RecordLaunch.h"
#include "sweep/SweepImageMode.h"
#include "app/StartupProbe.h"
#include "app/StopSignalNotifier.h"
#include "app/Theme.h"

namespace {

void nameApplication() {
  QCoreApplication::setOrganizationName("pipescope");
  QCoreApplication::setApplicationName("pipescope");
  QCoreApplication::setApplicationVersion(PIPESCOPE_VERSION);
}

void describeCommandLine(QCommandLineParser& parser) {
  parser.setApplicationDescription(
      "Shows, live, how a CPU-GPU pipeline spends its time.\n"
      "'pipescope record [--] PROGRAM [ARGUMENTS...]' opens the window recording a CUDA program of yours live "
      "(see 'pipescope record --help').");
  parser.addHelpOption();
  parser.addVersionOption();
  pipescope::ui::addScreenshotOptions(parser);
  pipescope::ui::addSweepImageOptions(parser);
  parser.addOption({"measure-startup", "Print the time from start to the first painted frame, then exit."});
  parser.addOption({"presentation",
                    "Start in presentation mode, for a projector: full screen, large text, the timeline, the limits "
                    "and one chart (PageDown/PageUp step a lesson, Esc leaves)."});
  pipescope::ui::files::addLaunchFileArgument(parser);
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t mainStartNs = pipescope::ui::StartupProbe::monotonicNs();
  // `pipescope record -- PROGRAM ARGS...`: the program's arguments are nobody else's.
  const pipescope::ui::RecordLaunch record = pipescope::ui::recordLaunch(argc, argv);
  if (record.help) {
    std::fputs(pipescope::ui::recordLaunchUsage().c_str(), stdout);
    return 0;
  }
  if (!record.error.empty()) {
    std::fprintf(stderr, "pipescope record: %s", record.error.c_str());
    return 2;
  }
  int ownArgc = record.ownArgc;
  if (pipescope::ui::printsTextOnly(ownArgc, argv)) {
    QCoreApplication app(ownArgc, argv);
    nameApplication();
    QCommandLineParser parser;
    describeCommandLine(parser);
    parser.process(app);  // prints the help or the version and exits
    return 0;
  }
  pipescope::ui::selectHeadlessPlatform(ownArgc, argv);  // before QApplication loads the platform plugin
  QApplication app(ownArgc, argv);
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
  // SIGTERM, SIGHUP and Ctrl-C close the window as the user would: a live run is
  // stopped and kept in the autosave folder, the settings are saved.
  pipescope::ui::StopSignalNotifier stopSignals;
  pipescope::ui::quitOnStopSignal(stopSignals);
  window.show();
  if (parser.isSet("presentation")) window.presentation().enter();
  // `pipescope FILE`, as file managers and the .desktop entry's %f pass it.
  if (const QString file = pipescope::ui::files::launchFile(parser); !file.isEmpty()) window.traceFiles().openFile(file);
  if (record.requested) {
    pipescope::record::RecordRequest request;
    request.command = record.command;
    window.recording().start(request);
  }
  const int status = app.exec();
  return stopSignals.received() ? 128 + stopSignals.received() : status;
}
