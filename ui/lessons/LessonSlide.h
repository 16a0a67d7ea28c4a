#pragma once
// The lesson as the presentation mode shows it beside the timeline: its title, the
// question with numbered answers (the keys 1-4 pick the class's), once its runs are
// done what happened and the numbers, and last what the clicker does next. Taller
// than the screen (a lesson's results), it scrolls: PageDown first shows the rest,
// then goes on, and the status line under it says which it does next. Mirrors
// the Lessons panel (LessonsPanel::stateChanged); large print comes from the window's
// font.
#include <QWidget>

class QLabel;
class QScrollArea;

namespace pipescope::ui {

class LessonsPanel;

class LessonSlide : public QWidget {
  Q_OBJECT
 public:
  explicit LessonSlide(LessonsPanel& lessons, QWidget* parent = nullptr);

  /// Everything the slide shows, one line per label (tests).
  QString text() const;
  /// Whether part of the slide is below (above) what fits on screen.
  bool moreBelow() const;
  bool moreAbove() const;
  /// A clicker's PageDown (PageUp) on a slide taller than the screen: scrolls by most
  /// of a screen; false where there is nothing more that way.
  bool pageDown();
  bool pageUp();
  /// The Down (Up) arrow: a few lines.
  void scrollLines(int lines);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void refresh();
  void applyFonts();
  void showNextKey();  ///< the status line's "PageDown: ..." for where the slide is scrolled
  bool scrollBy(int pixels);
  int lineStart(int y) const;

  LessonsPanel& lessons_;
  QLabel* title_;
  QLabel* question_;
  QLabel* choices_;
  QLabel* status_;
  QLabel* feedback_;
  QLabel* numbers_;
  QScrollArea* scroll_;
  int shownLesson_ = -1;
  int shownStage_ = -1;
};

}  // namespace pipescope::ui
