#pragma once
// Finds text a user cannot read whole in a window: walks every visible widget and
// reports
// - a non-wrapping label, button, group box title, combo box, spin box or progress
//   text narrower (or lower) than its text;
// - a word-wrapping label whose height for its width exceeds its height, or with a
//   word wider than the label;
// - a table or list cell, or a header section, narrower than its text, unless the
//   cell's tooltip holds the text;
// - a tab or dock title narrower than its text;
// - one of pipescope's own painted widgets smaller than its minimum size hint;
// - any of these cut off by a parent (the window included), unless that parent is
//   the viewport of a scroll area that can scroll in that direction.
// A test helper: the checks are deliberately conservative (a pixel of slack), so a
// failure names a widget a user would see cut.
#include <QRect>
#include <QString>
#include <vector>

class QWidget;

namespace pipescope::ui::testing {

struct ClippedFinding {
  QString widget;  ///< class, object name and the chain of parents with names
  QString text;
  QString why;
};

std::vector<ClippedFinding> findClippedText(const QWidget* window);
/// One line per finding, for a test's failure message.
QString describe(const std::vector<ClippedFinding>& found);

}  // namespace pipescope::ui::testing
