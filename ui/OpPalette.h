#pragma once
// One colour per op kind, shared by the timeline, its legend, the charts and the
// exported report, so a colour means the same thing everywhere. The palette is
// colour-blind safe (Okabe-Ito based) and prints legibly in greyscale.
#include <QColor>
#include <QString>

#include "trace/Op.h"

namespace pipescope::ui {

/// Standard: the Okabe-Ito colours. HighContrast (presentation mode, a projector):
/// the same hues darkened to at least 3.9:1 against white, host sync in black (its
/// yellow vanishes on a washed-out screen); every pair stays apart under simulated
/// protanopia, deuteranopia and tritanopia.
enum class OpColors { Standard, HighContrast };
/// For the whole app (the timeline, its legend and the charts read it on every paint).
void setOpColors(OpColors colors);
OpColors opColors();

QColor opKindColor(OpKind kind);
/// Label for legends: "H2D copy", "Kernel", ...
QString opKindLabel(OpKind kind);
/// Colour of the wait bars drawn before an op (hatched in that op's colour).
QColor waitColor(OpKind kind);

}  // namespace pipescope::ui
