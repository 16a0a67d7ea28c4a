#pragma once
// Presentation mode (View › Presentation, `pipescope --presentation`): the window as
// a class sees it on a projector. Full screen, only the timeline with its legends, the
// limits bar and one chart (engines busy and overlap), plus the lesson beside them
// once a lesson is under way; text sized for the back of the room (at least 20 px,
// a thirtieth of the window's height), lanes as high as their labels need, a
// high-contrast palette whose op colours stay apart for colour-blind viewers
// (OpPalette.h). A presenter's clicker steps the lesson: PageDown or Space forward,
// PageUp back (a slide taller than the screen scrolls first; the arrows scroll it);
// 1-4 pick the class's answer; Esc leaves and puts everything back.
#include <QByteArray>
#include <QObject>
#include <QRect>
#include <optional>

#include "analysis/Limits.h"

class QAction;
class QWidget;

namespace pipescope::ui {

class LessonSlide;
class LimitsBar;
class MainWindow;

class PresentationMode : public QObject {
  Q_OBJECT
 public:
  explicit PresentationMode(MainWindow& window);

  QAction* toggleAction() const { return toggle_; }
  /// The keys of the mode, for Help › Keyboard shortcuts and the window.
  QList<QAction*> actions() const;
  bool active() const { return active_; }
  /// Enters the mode; `fullScreen` false keeps the window's geometry (tests).
  void enter(bool fullScreen = true);
  void leave();

  /// The text size for a window of this height, in pixels.
  static int textPixelsFor(int windowHeight);
  int textPixels() const { return textPixels_; }
  /// Whether the lesson is shown beside the timeline.
  bool showsLesson() const;
  LessonSlide& slide() const { return *slide_; }
  LimitsBar& limitsBar() const { return *bar_; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void applyFonts();
  void stepForward();
  void stepBack();
  void showLesson(bool on);
  QList<QWidget*> legends() const;
  void fitTimeline();

  MainWindow& window_;
  QWidget* side_;
  LessonSlide* slide_;
  LimitsBar* bar_;
  QWidget* chartSlot_;
  QAction* toggle_;
  QAction* leave_;
  QAction* forward_;
  QAction* back_;
  QAction* lineDown_;
  QAction* lineUp_;
  QList<QAction*> answers_;
  bool active_ = false;
  int textPixels_ = 0;
  struct Saved {
    QByteArray docks;
    QRect geometry;  ///< the client area, as it was: restoreGeometry() would move it under a title bar's height
    Qt::WindowStates states;
    bool docksLaidOut = true;  ///< false: entered before the window had its first layout
    bool menuBar = true, statusBar = true;
  } saved_;
};

}  // namespace pipescope::ui
