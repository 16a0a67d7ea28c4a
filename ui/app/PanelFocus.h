#pragma once
// Keyboard access to the panels: View › Go to panel moves the keyboard focus into a
// dock (showing and raising it first, as a click on its tab would), Alt+0 back to the
// timeline; from there Tab and Shift+Tab reach every control of the panel.
#include <QList>

class QAction;
class QMainWindow;
class QMenu;
class QWidget;

namespace pipescope::ui {

/// Adds the "Go to panel" submenu to `view`, one action per dock (Alt+1 ... in the
/// order given by their object names) and one for `timeline` (Alt+0); returns them.
QList<QAction*> addGoToPanelMenu(QMainWindow& window, QMenu& view, QWidget& timeline);

/// Shows and raises the dock named `objectName` and focuses its first control;
/// false when there is no such dock.
bool focusPanel(QMainWindow& window, const char* objectName);

}  // namespace pipescope::ui
