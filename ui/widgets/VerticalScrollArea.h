#pragma once
// A panel's scroll area for a narrow dock: the content always gets the full width
// (it wraps, it never scrolls sideways) and scrolls vertically when the dock is
// lower than it. Its size hints come from the content, so a dock's default width is
// what its content asks for, and its minimum width is one at which nothing of the
// content is cut (a plain QScrollArea with the horizontal bar off would let the dock
// shrink below that and cut the content's right edge).
#include <QScrollArea>

namespace pipescope::ui {

class VerticalScrollArea : public QScrollArea {
  Q_OBJECT
 public:
  /// `content` may be null: a panel built on first use comes later, by setContent().
  explicit VerticalScrollArea(QWidget* content, QWidget* parent = nullptr);
  void setContent(QWidget* content);

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  int chromeWidth() const;  ///< the vertical bar and the frame
};

}  // namespace pipescope::ui
