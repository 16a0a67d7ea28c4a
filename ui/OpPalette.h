#pragma once
// One colour per op kind, shared by the timeline, its legend, the charts and the
// exported report, so a colour means the same thing everywhere. The palette is
// colour-blind safe (Okabe-Ito based) and prints legibly in greyscale.
#include <QColor>
#include <QString>

#include "trace/Op.h"

namespace pipescope::ui {

QColor opKindColor(OpKind kind);
/// Label for legends: "H2D copy", "Kernel", ...
QString opKindLabel(OpKind kind);
/// Colour of the wait bars drawn before an op (hatched in that op's colour).
QColor waitColor(OpKind kind);

}  // namespace pipescope::ui
