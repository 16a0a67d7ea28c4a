#pragma once
// The lesson as the presentation mode shows it beside the timeline: its title, the
// question with numbered answers (the keys 1-4 pick the class's), once its runs are
// done what happened and the numbers, and last what the clicker does next. Mirrors
// the Lessons panel (LessonsPanel::stateChanged); large print comes from the window's
// font.
#include <QWidget>

class QLabel;

namespace pipescope::ui {

class LessonsPanel;

class LessonSlide : public QWidget {
  Q_OBJECT
 public:
  explicit LessonSlide(LessonsPanel& lessons, QWidget* parent = nullptr);

  /// Everything the slide shows, one line per label (tests).
  QString text() const;

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void refresh();
  void applyFonts();

  LessonsPanel& lessons_;
  QLabel* title_;
  QLabel* question_;
  QLabel* choices_;
  QLabel* status_;
  QLabel* feedback_;
  QLabel* numbers_;
};

}  // namespace pipescope::ui
