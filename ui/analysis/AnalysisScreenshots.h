#pragma once
// Headless set-ups for the screenshot mode's --lesson and --compare: play a lesson,
// or run two presets as A and B, on the window's simulator backend, waiting (with an
// event loop) until it is done; then lay the docks out for a figure.
#include <QString>

namespace pipescope::ui {

class MainWindow;

/// Plays lesson `number` (1-based) with its expected answer picked, as fast as the
/// simulator goes; false with a message when it cannot finish.
bool playLessonForScreenshot(MainWindow& window, int number, double timeoutSeconds, QString* error);
/// Runs preset A, pins it, runs preset B and shows the A/B comparison.
bool compareForScreenshot(MainWindow& window, const QString& presetA, const QString& presetB, double timeoutSeconds,
                          QString* error);

}  // namespace pipescope::ui
