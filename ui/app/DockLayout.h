#pragma once
// The two arrangements of the main window's docks. Wide (a 1600x1000 window and up):
// Controls | Lessons on the left, Metrics | Advice on the right, Charts | A/B | Sweep
// under the timeline across the whole width. Compact (below kCompactBelow, a laptop
// or a projector): the four side panels share one tabbed column on the left, so the
// timeline keeps most of the width, and the bottom row is lower. Dock sizes come
// from what the panels ask for (their size hints), bounded by a share of the window.
#include <QByteArray>

class QMainWindow;

namespace pipescope::ui {

enum class DockArrangement { Wide, Compact };

/// Puts the docks (found by their object names, "dock.controls" ...) in their areas
/// and tab groups for `arrangement`. Docks the user closed stay closed.
void arrangeDocks(QMainWindow& window, DockArrangement arrangement);
/// Sizes the dock areas from their panels' size hints; call once the window has its
/// real geometry (sizes set before that do not stick).
void sizeDocksFromContent(QMainWindow& window, DockArrangement arrangement);

/// QMainWindow leaves the tab bar of a tab group that moved away (or whose docks are
/// all hidden) visible and empty, where the group was: hides such tab bars.
void hideEmptyTabBars(QMainWindow& window);

/// "wide" / "compact", as the settings store it.
const char* toString(DockArrangement arrangement);
DockArrangement parseDockArrangement(const QByteArray& name);  ///< anything else: Wide

}  // namespace pipescope::ui
