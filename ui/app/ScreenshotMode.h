#pragma once
// Headless figures for docs and reports: `pipescope --screenshot out.png` runs a
// preset on the simulator to completion (or for --run-for seconds), then saves the
// window (or the report page) and exits. Works on the offscreen platform.
#include <QSize>
#include <QString>
#include <QStringList>
#include <optional>

#include "app/Theme.h"
#include "backend/Backend.h"

class QCommandLineParser;

namespace pipescope::ui {

struct ScreenshotRequest {
  QString path;                        ///< .png (window or report) or .svg (report)
  QString preset = "multi-stream";
  QString profile = "h200";
  BackendChoice backend = BackendChoice::Simulator;
  QSize size{1600, 1000};
  double runForSeconds = 0;            ///< 0: run to completion
  bool report = false;                 ///< the one-page report instead of the window
  Theme theme = Theme::Light;
  double timeoutSeconds = 120;         ///< a run that does not end is stopped then
  int lesson = 0;                      ///< --lesson N: play lesson N, save the window after it
  QString compareA, compareB;          ///< --compare A B: run A, pin it, run B (--report: the comparison image)
  QString openPath;                    ///< --open: show this trace file instead of running a preset
};

/// Adds --screenshot, --open, --preset, --backend, --profile, --size, --run-for, --report, --lesson, --compare, --theme.
void addScreenshotOptions(QCommandLineParser& parser);
/// nullopt when --screenshot was not given; throws std::invalid_argument with a
/// message naming the option for bad values.
std::optional<ScreenshotRequest> screenshotRequest(const QCommandLineParser& parser);

/// Runs the request; returns the process exit status (0 saved, 1 failed) and
/// prints what happened on stderr.
int runScreenshot(const ScreenshotRequest& request);

}  // namespace pipescope::ui
