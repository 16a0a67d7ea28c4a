#pragma once
// Where the main window goes on the screens it has: the first launch takes the
// screen's available area up to the size the default layout is drawn for; a saved
// geometry is put back onto a screen that exists now (a laptop after its external
// monitor is unplugged: Qt's restoreGeometry moves such a window but keeps a height
// taller than the screen). Plain geometry, no widgets: tested on its own.
#include <QList>
#include <QRect>
#include <QSize>

namespace pipescope::ui {

/// The size the default dock layout is drawn for.
inline constexpr QSize kDesignedWindowSize{1600, 1000};
/// Narrower or lower than this, the window uses its compact layout (MainWindowLayout.h).
inline constexpr QSize kCompactBelow{1400, 850};

/// The designed size, bounded by `available`, centred in it.
QRect firstLaunchGeometry(const QRect& available, QSize designed = kDesignedWindowSize);

/// `frame` moved (and shrunk if needed) onto the screen it overlaps most, or onto
/// `screens.front()` (the primary) when it overlaps none. `screens` are available
/// geometries; an empty list leaves `frame` as it is.
QRect clampOntoScreens(const QRect& frame, const QList<QRect>& screens);

/// Whether a window of this size needs the compact layout.
bool isCompactSize(QSize windowSize);

}  // namespace pipescope::ui
