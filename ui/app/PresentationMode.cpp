#include "app/PresentationMode.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QEvent>
#include <QMenuBar>
#include <QStatusBar>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

#include "MainWindow.h"
#include "OpPalette.h"
#include "analysis/AnalysisController.h"
#include "analysis/LimitsBar.h"
#include "app/DockLayout.h"
#include "app/Theme.h"
#include "charts/ThroughputCharts.h"
#include "lessons/LessonPlayer.h"
#include "lessons/LessonSlide.h"
#include "lessons/LessonsPanel.h"
#include "analysis/WaitCauseLegend.h"
#include "timeline/TimelineLegend.h"
#include "timeline/TimelineView.h"

namespace pipescope::ui {

namespace {

/// Keys that work while the menu bar is hidden and only in the mode.
QAction* modeAction(QObject* parent, const QString& text, const QList<QKeySequence>& keys) {
  auto* a = new QAction(text, parent);
  a->setShortcuts(keys);
  a->setShortcutContext(Qt::WindowShortcut);
  a->setEnabled(false);
  return a;
}

}  // namespace

PresentationMode::PresentationMode(MainWindow& window) : QObject(&window), window_(window) {
  // Beside the timeline: the lesson (while one is under way), the limits bar, one chart.
  side_ = new QWidget;
  side_->setObjectName("presentationSide");
  auto* layout = new QVBoxLayout(side_);
  layout->setContentsMargins(8, 0, 0, 0);
  slide_ = new LessonSlide(window.lessons());
  bar_ = new LimitsBar;
  bar_->setObjectName("presentationLimits");
  chartSlot_ = new QWidget;
  auto* chartLayout = new QVBoxLayout(chartSlot_);
  chartLayout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(slide_, 5);
  layout->addWidget(bar_);
  layout->addWidget(chartSlot_, 2);
  side_->hide();
  window.setBesideTimeline(side_);

  connect(&window.analysis(), &AnalysisController::limitsShown, bar_, &LimitsBar::setLimits);
  connect(&window.analysis(), &AnalysisController::limitsCleared, bar_, &LimitsBar::clear);
  // A lesson started by any means (the panel's button, a step) comes on screen.
  connect(&window.lessons().player(), &LessonPlayer::runStarted, this, [this] {
    if (active_) showLesson(true);
  });

  toggle_ = new QAction(tr("&Presentation"), this);
  toggle_->setCheckable(true);
  toggle_->setShortcut(QKeySequence(Qt::Key_F11));
  toggle_->setToolTip(tr("Full screen for a projector: large text, the timeline, the limits and one chart"));
  connect(toggle_, &QAction::toggled, this, [this](bool on) { on ? enter() : leave(); });
  leave_ = modeAction(this, tr("Leave presentation"), {QKeySequence(Qt::Key_Escape)});
  connect(leave_, &QAction::triggered, this, &PresentationMode::leave);
  forward_ = modeAction(this, tr("Lesson: next step"), {QKeySequence(Qt::Key_PageDown), QKeySequence(Qt::Key_Space)});
  connect(forward_, &QAction::triggered, this, &PresentationMode::stepForward);
  back_ = modeAction(this, tr("Lesson: step back"), {QKeySequence(Qt::Key_PageUp)});
  connect(back_, &QAction::triggered, this, &PresentationMode::stepBack);
  // A slide taller than the screen (a lesson's results): the arrows scroll it.
  lineDown_ = modeAction(this, tr("Lesson: scroll down"), {QKeySequence(Qt::Key_Down)});
  connect(lineDown_, &QAction::triggered, this, [this] { slide_->scrollLines(3); });
  lineUp_ = modeAction(this, tr("Lesson: scroll up"), {QKeySequence(Qt::Key_Up)});
  connect(lineUp_, &QAction::triggered, this, [this] { slide_->scrollLines(-3); });
  for (int i = 0; i < 4; ++i) {
    QAction* a = modeAction(this, tr("Lesson: the class's answer %1").arg(i + 1), {QKeySequence(Qt::Key_1 + i)});
    connect(a, &QAction::triggered, this, [this, i] {
      showLesson(true);
      window_.lessons().choose(i);
    });
    answers_ << a;
  }
  // On the window, not only in the menus: the menu bar is hidden in the mode.
  window.addAction(toggle_);
  window.addActions(actions());
  window.installEventFilter(this);
}

QList<QAction*> PresentationMode::actions() const {
  return QList<QAction*>{leave_, forward_, back_, lineDown_, lineUp_} + answers_;
}

int PresentationMode::textPixelsFor(int windowHeight) { return std::max(20, windowHeight / 30); }

bool PresentationMode::showsLesson() const { return active_ && !slide_->isHidden(); }

void PresentationMode::showLesson(bool on) { slide_->setVisible(on); }

void PresentationMode::enter(bool fullScreen) {
  if (active_) return;
  active_ = true;
  saved_ = {window_.saveState(),
            window_.geometry(),
            window_.windowState(),
            window_.docksLaidOut(),
            !window_.menuBar()->isHidden(),
            !window_.statusBar()->isHidden()};
  window_.setPresenting(true);
  // The lesson comes along when it was what the teacher had open or it is running.
  auto* lessonsDock = window_.findChild<QDockWidget*>("dock.lessons");
  const LessonsPanel& lessons = window_.lessons();
  const bool lessonOn = (lessonsDock && lessonsDock->isVisible() && !lessonsDock->visibleRegion().isEmpty()) ||
                        lessons.stage() != LessonsPanel::Stage::Question;
  for (QDockWidget* d : window_.findChildren<QDockWidget*>()) d->hide();
  hideEmptyTabBars(window_);
  window_.menuBar()->hide();
  window_.statusBar()->hide();
  ThroughputCharts& charts = window_.charts();
  chartSlot_->layout()->addWidget(&charts);  // borrowed from its dock until leave()
  charts.showOnly(ThroughputCharts::Chart::Utilisation);
  charts.show();
  showLesson(lessonOn);
  side_->show();
  setOpColors(OpColors::HighContrast);
  QApplication::setPalette(presentationPalette());
  for (QAction* a : actions()) a->setEnabled(true);
  if (toggle_->isChecked() != true) {
    const QSignalBlocker block(toggle_);
    toggle_->setChecked(true);
  }
  if (fullScreen) window_.showFullScreen();
  applyFonts();
  window_.timeline().setFocus();
  fitTimeline();
}

void PresentationMode::leave() {
  if (!active_) return;
  active_ = false;
  for (QAction* a : actions()) a->setEnabled(false);
  {
    const QSignalBlocker block(toggle_);
    toggle_->setChecked(false);
  }
  side_->hide();
  ThroughputCharts& charts = window_.charts();
  charts.showOnly(std::nullopt);
  charts.setTextPixelSize(0);
  if (auto* dock = window_.findChild<QDockWidget*>("dock.charts")) dock->setWidget(&charts);
  window_.setFont(QFont());  // the application's font again
  setOpColors(OpColors::Standard);
  applyTheme(currentTheme());
  window_.menuBar()->setVisible(saved_.menuBar);
  window_.statusBar()->setVisible(saved_.statusBar);
  window_.restoreState(saved_.docks);
  hideEmptyTabBars(window_);
  // The docks' minimum sizes first, then the geometry: restored against the
  // presentation's layout, the window could keep a size the docks pushed it to.
  window_.layout()->activate();
  window_.setWindowState(saved_.states);
  if (!(saved_.states & (Qt::WindowMaximized | Qt::WindowFullScreen))) window_.setGeometry(saved_.geometry);
  for (QWidget* legend : legends()) legend->setFont(QFont());
  textPixels_ = 0;
  window_.setPresenting(false);
  // Entered before the docks had their sizes and the window manager its frame
  // (`--presentation`): the window is fitted and the docks laid out as a usual
  // start does, once the geometry above has settled.
  if (!saved_.docksLaidOut) {
    window_.fitOntoScreenSoon();
    QTimer::singleShot(0, &window_, [this] { window_.applyDefaultLayout(); });
  }
  fitTimeline();
}

void PresentationMode::applyFonts() {
  textPixels_ = textPixelsFor(window_.height());
  QFont font = QApplication::font();
  font.setPixelSize(textPixels_);
  window_.setFont(font);
  // Chart labels a little smaller than the text, never under 18 px.
  window_.charts().setTextPixelSize(std::max(18, textPixels_ * 4 / 5));
  // The legends explain the colours; smaller than the lane labels, so that the lanes
  // keep the height.
  QFont legendFont = font;
  legendFont.setPixelSize(std::max(16, textPixels_ * 2 / 3));
  for (QWidget* legend : legends()) legend->setFont(legendFont);
  side_->setMaximumWidth(std::max(360, window_.width() * 36 / 100));
  side_->setMinimumWidth(std::min(side_->maximumWidth(), 22 * textPixels_));
}

QList<QWidget*> PresentationMode::legends() const {
  QList<QWidget*> out{&window_.analysis().legend()};
  if (auto* l = window_.findChild<TimelineLegend*>()) out << l;
  return out;
}

void PresentationMode::fitTimeline() {
  // The plot's width changed with the side column: a finished run fits it again; a
  // live one keeps following.
  QTimer::singleShot(0, &window_, [this] {
    if (!window_.timeline().followLive()) window_.timeline().fit();
  });
}

bool PresentationMode::eventFilter(QObject* watched, QEvent* event) {
  if (active_ && watched == &window_ && event->type() == QEvent::Resize) applyFonts();
  return QObject::eventFilter(watched, event);
}

void PresentationMode::stepForward() {
  // The first step brings the lesson's question on screen; the next ones go through it.
  // A slide taller than the screen shows its rest first.
  if (!showsLesson()) return showLesson(true);
  if (slide_->pageDown()) return;
  window_.lessons().stepForward();
}

void PresentationMode::stepBack() {
  if (!showsLesson()) return showLesson(true);
  if (slide_->pageUp()) return;
  window_.lessons().stepBack();
}

}  // namespace pipescope::ui
