#pragma once
// Headless sweep figures: `pipescope --sweep-json sweep.json --screenshot sweep.png`
// opens a sweep saved by `pipescope-cli sweep --json` (e.g. on a GPU machine without
// Qt) and exports its figure (.png at 2x or .svg), without a display.
#include <QString>

class QCommandLineParser;

namespace pipescope::ui {

/// Adds --sweep-json FILE (used with --screenshot OUT).
void addSweepImageOptions(QCommandLineParser& parser);
/// True when --sweep-json was given.
bool wantsSweepImage(const QCommandLineParser& parser);
/// Loads the sweep and writes the figure to the --screenshot path; returns the exit
/// status (0 written, 1 the file could not be read or written, 2 no --screenshot).
int runSweepImage(const QCommandLineParser& parser);
int runSweepImage(const QString& jsonPath, const QString& imagePath);

}  // namespace pipescope::ui
