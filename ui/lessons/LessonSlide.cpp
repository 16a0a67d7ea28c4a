#include "lessons/LessonSlide.h"

#include <QEvent>
#include <algorithm>
#include <QLabel>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>

#include "lessons/LessonsPanel.h"
#include "widgets/VerticalScrollArea.h"

namespace pipescope::ui {

namespace {
QLabel* wrapped(const char* name) {
  auto* l = new QLabel;
  l->setObjectName(name);
  l->setWordWrap(true);
  l->setTextFormat(Qt::RichText);
  return l;
}
}  // namespace

LessonSlide::LessonSlide(LessonsPanel& lessons, QWidget* parent) : QWidget(parent), lessons_(lessons) {
  setObjectName("lessonSlide");
  auto* inner = new QWidget;
  auto* layout = new QVBoxLayout(inner);
  title_ = wrapped("slideTitle");
  question_ = wrapped("slideQuestion");
  choices_ = wrapped("slideChoices");
  status_ = wrapped("slideStatus");
  feedback_ = wrapped("slideFeedback");
  numbers_ = wrapped("slideNumbers");
  for (QLabel* l : {title_, question_, choices_, feedback_, numbers_}) layout->addWidget(l);
  layout->addStretch(1);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  scroll_ = new VerticalScrollArea(inner);
  outer->addWidget(scroll_);
  // Under the scrolled part, always in view: what the clicker does next.
  outer->addWidget(status_);
  const int indent = layout->contentsMargins().left() + scroll_->frameWidth();  // in line with the text above
  status_->setContentsMargins(indent, 0, layout->contentsMargins().right(), 0);
  connect(&lessons_, &LessonsPanel::stateChanged, this, &LessonSlide::refresh);
  // The status line's next key follows the scroll position and the slide's height.
  connect(scroll_->verticalScrollBar(), &QScrollBar::valueChanged, this, &LessonSlide::showNextKey);
  connect(scroll_->verticalScrollBar(), &QScrollBar::rangeChanged, this, &LessonSlide::showNextKey);
  applyFonts();
  refresh();
}

void LessonSlide::refresh() {
  const LessonsPanel::Stage stage = lessons_.stage();
  title_->setText(lessons_.titleText().toHtmlEscaped());
  question_->setText(lessons_.questionText().toHtmlEscaped());
  const QStringList choices = lessons_.choiceTexts();
  const int mine = lessons_.chosen();
  const int observed = stage == LessonsPanel::Stage::Results ? lessons_.lastResult().observedChoice : -1;
  QStringList lines;
  for (int i = 0; i < choices.size(); ++i) {
    QString line = QStringLiteral("%1. %2").arg(i + 1).arg(choices[i].toHtmlEscaped());
    if (i == mine) line = QStringLiteral("<b>%1 ◀</b>").arg(line);
    if (i == observed) line += QStringLiteral(" <b>✓</b>");
    lines << line;
  }
  choices_->setText(lines.join("<br>"));
  const bool results = stage == LessonsPanel::Stage::Results;
  feedback_->setText(results ? lessons_.feedbackText() : QString());
  numbers_->setText(results ? lessons_.numbersText().toHtmlEscaped().replace('\n', "<br>") : QString());
  feedback_->setVisible(results);
  numbers_->setVisible(results);
  // Another lesson or stage starts at the top of the slide.
  if (lessons_.currentLesson() != shownLesson_ || int(stage) != shownStage_) {
    shownLesson_ = lessons_.currentLesson();
    shownStage_ = int(stage);
    scroll_->verticalScrollBar()->setValue(0);
  }
  showNextKey();
}

void LessonSlide::showNextKey() {
  // What the clicker does next, instead of the panel's "press Run".
  const QString more = tr("PageDown or ↓: more");
  switch (lessons_.stage()) {
    case LessonsPanel::Stage::Question:
      status_->setText(
          moreBelow() ? tr("1–%1: the class's answer · %2 · PageUp: back").arg(lessons_.choiceTexts().size()).arg(more)
                      : tr("1–%1: the class's answer · PageDown or Space: run it · PageUp: back")
                            .arg(lessons_.choiceTexts().size()));
      break;
    case LessonsPanel::Stage::Running: status_->setText(lessons_.statusText().toHtmlEscaped()); break;
    case LessonsPanel::Stage::Results:
      status_->setText(moreBelow() ? tr("%1 results · PageUp: the question again").arg(more)
                                   : tr("PageDown: the next lesson · PageUp: the question again"));
      break;
  }
}

bool LessonSlide::moreBelow() const {
  const QScrollBar* bar = scroll_->verticalScrollBar();
  return bar->value() < bar->maximum();
}

bool LessonSlide::moreAbove() const { return scroll_->verticalScrollBar()->value() > 0; }

bool LessonSlide::scrollBy(int pixels) {
  QScrollBar* bar = scroll_->verticalScrollBar();
  const int before = bar->value();
  bar->setValue(before + pixels);
  return bar->value() != before;
}

int LessonSlide::lineStart(int y) const {
  // The top of the text line at content position y, so that a page starts with a
  // whole line rather than the lower half of one.
  for (const QLabel* l : {title_, question_, choices_, feedback_, numbers_}) {
    if (l->isHidden() || y < l->y() || y >= l->y() + l->height()) continue;
    const int line = QFontMetrics(l->font()).lineSpacing();
    const int top = l->y() + l->contentsRect().top();
    return y <= top ? l->y() : top + (y - top) / line * line;
  }
  return y;  // between labels: nothing to cut
}

bool LessonSlide::pageDown() {
  // Most of a screen: the last line seen stays on it, so the class keeps its place.
  if (!moreBelow()) return false;
  const int value = scroll_->verticalScrollBar()->value();
  const int step = std::max(1, scroll_->viewport()->height() - QFontMetrics(numbers_->font()).lineSpacing());
  const int target = std::max(value + 1, lineStart(value + step));
  return scrollBy(target - value);
}

bool LessonSlide::pageUp() {
  if (!moreAbove()) return false;
  const int value = scroll_->verticalScrollBar()->value();
  const int step = std::max(1, scroll_->viewport()->height() - QFontMetrics(numbers_->font()).lineSpacing());
  return scrollBy(lineStart(std::max(0, value - step)) - value);
}

void LessonSlide::scrollLines(int lines) { scrollBy(lines * QFontMetrics(numbers_->font()).lineSpacing()); }

void LessonSlide::applyFonts() {
  // Relative to the window's font, which the presentation mode sets for the room: the
  // lesson's sentences a little smaller than the lane labels, so that they fit beside
  // the timeline, never under 18 px.
  const QFont window = font();
  const int px = window.pixelSize() > 0 ? window.pixelSize() : QFontInfo(window).pixelSize();
  QFont text = window;
  text.setPixelSize(std::max(18, px * 5 / 6));
  QFont title = text;
  title.setBold(true);
  title.setPixelSize(std::max(18, px));
  QFont bold = text;
  bold.setBold(true);
  QFont small = text;
  small.setPixelSize(std::max(16, px * 2 / 3));
  for (QLabel* l : {choices_, feedback_, numbers_}) l->setFont(text);
  title_->setFont(title);
  question_->setFont(bold);
  status_->setFont(small);
}

void LessonSlide::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::FontChange) applyFonts();
}

QString LessonSlide::text() const {
  QStringList out;
  for (const QLabel* l : {title_, question_, choices_, status_, feedback_, numbers_})
    if (!l->isHidden() && !l->text().isEmpty()) {
      out << QString(l->text()).replace("<br>", "\n").remove(QRegularExpression("<[^>]*>"));
    }
  return out.join('\n');
}

}  // namespace pipescope::ui
