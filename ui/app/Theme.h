#pragma once
// Light (print, projectors in a lit room) and dark (a screen in a dim room) looks
// of the whole app. Everything custom painted reads the application palette, so a
// theme is a palette plus the Fusion style, which honours palettes on every platform.
#include <QPalette>
#include <QString>
#include <optional>

namespace pipescope::ui {

enum class Theme { Light, Dark };

QString toString(Theme theme);  ///< "light", "dark"
std::optional<Theme> parseTheme(const QString& name);
QPalette themePalette(Theme theme);
/// The presentation mode's look for a projector: black on white with no greys paler
/// than 4.5:1 (a washed-out projector flattens light greys into the background).
/// Not a theme: leaving the mode puts the current theme back.
QPalette presentationPalette();
/// Sets the style and palette of the running application (all windows follow).
void applyTheme(Theme theme);
/// The theme last applied (Light before any).
Theme currentTheme();
/// Whether a palette is a dark one (its window background is dark).
bool isDarkPalette(const QPalette& palette);

}  // namespace pipescope::ui
