#pragma once
// How each wait cause looks wherever it is drawn (timeline overlay, its legend, the
// comparison image): a pale fill that never reads as an op, and a hatch pattern of
// its own so the causes stay apart in greyscale print too.
#include <QBrush>
#include <QColor>
#include <QString>

#include "analysis/WaitCause.h"

class QPainter;
class QRectF;

namespace pipescope::ui {

QColor waitCauseColor(WaitCause cause);
Qt::BrushStyle waitCausePattern(WaitCause cause);
/// "engine busy", ... (the engine's own short name).
QString waitCauseLabel(WaitCause cause);
/// One sentence for tooltips and the legend's help.
QString waitCauseExplanation(WaitCause cause);
/// Fill plus hatch of `cause` into `r`.
void paintWaitCause(QPainter& p, const QRectF& r, WaitCause cause);

}  // namespace pipescope::ui
