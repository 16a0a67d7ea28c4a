#include "sweep/SweepImageMode.h"

#include <QCommandLineParser>
#include <cstdio>

#include "sweep/SweepView.h"

namespace pipescope::ui {

void addSweepImageOptions(QCommandLineParser& p) {
  p.addOption({"sweep-json",
               QObject::tr("Open a sweep saved as JSON (pipescope-cli sweep --json) and save its figure to the "
                           "--screenshot file (.png at 2x or .svg), then exit."),
               "FILE"});
}

bool wantsSweepImage(const QCommandLineParser& p) { return p.isSet("sweep-json"); }

int runSweepImage(const QCommandLineParser& p) {
  if (!p.isSet("screenshot") || p.value("screenshot").isEmpty()) {
    std::fprintf(stderr, "pipescope: --sweep-json needs --screenshot OUT.png (or .svg): where to save the figure\n");
    return 2;
  }
  return runSweepImage(p.value("sweep-json"), p.value("screenshot"));
}

int runSweepImage(const QString& jsonPath, const QString& imagePath) {
  SweepView view;
  view.resize(1600, 900);
  QString error;
  if (!view.loadJson(jsonPath, &error) || !view.exportImage(imagePath, &error)) {
    std::fprintf(stderr, "pipescope: %s\n", error.toUtf8().constData());
    return 1;
  }
  std::fprintf(stderr, "pipescope: saved %s (%zu points of %s)\n", imagePath.toUtf8().constData(),
               view.result().points.size(), jsonPath.toUtf8().constData());
  return 0;
}

}  // namespace pipescope::ui
