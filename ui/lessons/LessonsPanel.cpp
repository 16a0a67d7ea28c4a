#include "lessons/LessonsPanel.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QFormLayout>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include "MainWindow.h"
#include "analysis/LessonReport.h"
#include "compare/CompareController.h"
#include "run/RunController.h"
#include "widgets/VerticalScrollArea.h"
#include "widgets/WrappingRadioButton.h"

namespace pipescope::ui {

namespace {

QLabel* wrapped(const char* name) {
  auto* l = new QLabel;
  l->setObjectName(name);
  l->setWordWrap(true);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return l;
}

QString q(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

LessonsPanel::LessonsPanel(MainWindow& window) : window_(window) {
  setObjectName("lessonsPanel");
  player_ = new LessonPlayer(window);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  auto* inner = new QWidget;
  auto* layout = new QVBoxLayout(inner);

  list_ = new QListWidget;
  list_->setObjectName("lessonList");
  for (const Lesson& l : builtinLessons()) {
    const QString text = QStringLiteral("%1. %2").arg(l.number).arg(q(l.title));
    list_->addItem(text);
    list_->item(list_->count() - 1)->setToolTip(text);  // a narrow dock elides it
  }
  list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  list_->setTextElideMode(Qt::ElideRight);
  list_->setMinimumWidth(120);
  list_->setFixedHeight(list_->sizeHintForRow(0) * 9 + 2 * list_->frameWidth() + 2);
  layout->addWidget(list_);

  title_ = wrapped("lessonTitle");
  QFont big = title_->font();
  big.setPointSizeF(big.pointSizeF() * 1.3);
  big.setBold(true);
  title_->setFont(big);
  layout->addWidget(title_);
  lookFor_ = wrapped("lessonLookFor");
  layout->addWidget(lookFor_);
  runsLabel_ = wrapped("lessonRuns");
  runsLabel_->setStyleSheet("color: palette(placeholder-text);");
  layout->addWidget(runsLabel_);

  auto* predict = new QGroupBox(tr("Your prediction"));
  auto* predictLayout = new QVBoxLayout(predict);
  question_ = wrapped("lessonQuestion");
  question_->setStyleSheet("font-weight: 600;");
  predictLayout->addWidget(question_);
  choicesBox_ = new QWidget;
  choicesLayout_ = new QVBoxLayout(choicesBox_);
  choicesLayout_->setContentsMargins(8, 0, 0, 0);
  predictLayout->addWidget(choicesBox_);
  choices_ = new QButtonGroup(this);
  connect(choices_, &QButtonGroup::idClicked, this, &LessonsPanel::updateButtons);
  layout->addWidget(predict);

  auto* runRow = new QHBoxLayout;
  run_ = new QPushButton(tr("R&un the lesson"));
  run_->setObjectName("runLesson");
  stop_ = new QPushButton(tr("S&top"));
  slowMotion_ = new QCheckBox(tr("s&low motion"));
  slowMotion_->setChecked(true);
  slowMotion_->setToolTip(tr("Simulated runs, and replays of runs measured on the GPU, take about %1 s each, so "
                              "you can watch them on the timeline")
                              .arg(LessonPlayer::kWatchSeconds));
  connect(slowMotion_, &QCheckBox::toggled, player_, &LessonPlayer::setSlowMotion);
  runRow->addWidget(run_);
  runRow->addWidget(stop_);
  runRow->addStretch(1);
  layout->addLayout(runRow);
  layout->addWidget(slowMotion_);
  auto* whereRow = new QFormLayout;
  whereRow->setRowWrapPolicy(QFormLayout::WrapLongRows);
  whereRow->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  backend_ = new QComboBox;
  backend_->setObjectName("lessonBackend");
  backend_->addItem(tr("backend in Controls"));
  backend_->addItem(tr("simulator (live)"), int(BackendChoice::Simulator));
  backend_->addItem(tr("this GPU (measured)"), int(BackendChoice::Cuda));
  for (int i = 0; i < backend_->count(); ++i)
    backend_->setItemData(i, QStringList{tr("The backend chosen in the Controls panel"), tr("The simulator, live"),
                                         tr("This GPU: each run measured, then replayed")}[i],
                          Qt::ToolTipRole);
  backend_->setToolTip(tr("On the GPU every run is measured first (each repeated, claims judged on the medians), "
                          "then replayed on the timeline at the slow-motion pace. Runs on legacy GPUs are "
                          "always simulated."));
  connect(backend_, &QComboBox::currentIndexChanged, this, [this](int i) {
    player_->setBackendChoice(i == 0 ? std::nullopt
                                     : std::optional<BackendChoice>(BackendChoice(backend_->itemData(i).toInt())));
  });
  whereRow->addRow(tr("Run on"), backend_);
  reps_ = new QSpinBox;
  reps_->setRange(1, 20);
  reps_->setValue(player_->repetitions());
  reps_->setToolTip(tr("Each run on the GPU is repeated this often; the simulator runs once (it is deterministic)"));
  connect(reps_, &QSpinBox::valueChanged, player_, &LessonPlayer::setRepetitions);
  whereRow->addRow(tr("Repetitions"), reps_);
  layout->addLayout(whereRow);
  status_ = wrapped("lessonStatus");
  layout->addWidget(status_);

  results_ = new QGroupBox(tr("What happened"));
  auto* resultsLayout = new QVBoxLayout(results_);
  feedback_ = wrapped("lessonFeedback");
  setting_ = wrapped("lessonSetting");
  measuredRuns_ = wrapped("lessonMeasuredRuns");
  numbers_ = wrapped("lessonNumbers");
  checks_ = wrapped("lessonChecks");
  resultsLayout->addWidget(feedback_);
  resultsLayout->addWidget(setting_);
  resultsLayout->addWidget(measuredRuns_);
  resultsLayout->addWidget(numbers_);
  resultsLayout->addWidget(checks_);
  auto* showRow = new QFormLayout;
  showRow->setRowWrapPolicy(QFormLayout::WrapLongRows);
  showRow->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  showRun_ = new QComboBox;
  showRow->addRow(tr("Show run"), showRun_);
  compare_ = new QPushButton(tr("Co&mpare A/B"));
  compare_->setToolTip(tr("Pin the first run as A and show the last as B in the A/B comparison"));
  showRow->addRow(compare_);
  resultsLayout->addLayout(showRow);
  results_->setVisible(false);
  layout->addWidget(results_);

  auto* nav = new QHBoxLayout;
  previous_ = new QPushButton(tr("← &Previous"));
  next_ = new QPushButton(tr("&Next →"));
  nav->addWidget(previous_);
  nav->addStretch(1);
  nav->addWidget(next_);
  layout->addLayout(nav);
  layout->addStretch(1);
  scroll_ = new VerticalScrollArea(inner);
  outer->addWidget(scroll_);

  connect(list_, &QListWidget::currentRowChanged, this, &LessonsPanel::showLesson);
  connect(run_, &QPushButton::clicked, this, &LessonsPanel::run);
  connect(stop_, &QPushButton::clicked, player_, &LessonPlayer::stop);
  connect(previous_, &QPushButton::clicked, this, [this] { selectLesson(currentLesson() - 1); });
  connect(next_, &QPushButton::clicked, this, [this] { selectLesson(currentLesson() + 1); });
  connect(showRun_, &QComboBox::activated, this, &LessonsPanel::showRun);
  connect(compare_, &QPushButton::clicked, this, &LessonsPanel::compareFirstAndLast);
  connect(player_, &LessonPlayer::runStarted, this, [this](int i, int n, const QString& label) {
    setStatus(tr("Run %1 of %2: %3 — watch the timeline.").arg(i + 1).arg(n).arg(label));
    updateButtons();
  });
  connect(player_, &LessonPlayer::progress, this, &LessonsPanel::setStatus);
  connect(player_, &LessonPlayer::finished, this, &LessonsPanel::onFinished);
  connect(player_, &LessonPlayer::failed, this, &LessonsPanel::onFailed);
  connect(&window.runController(), &RunController::runStarted, this, &LessonsPanel::updateButtons);
  connect(&window, &MainWindow::runCompleted, this, &LessonsPanel::updateButtons);
  list_->setCurrentRow(0);
}

int LessonsPanel::currentLesson() const { return list_->currentRow() + 1; }

bool LessonsPanel::selectLesson(int number) {
  if (number < 1 || number > int(builtinLessons().size()) || player_->playing()) return false;
  list_->setCurrentRow(number - 1);
  return true;
}

void LessonsPanel::showLesson() {
  const int row = list_->currentRow();
  if (row < 0) return;
  const Lesson& l = builtinLessons()[std::size_t(row)];
  title_->setText(tr("Lesson %1: %2").arg(l.number).arg(q(l.title)));
  lookFor_->setText(q(l.lookFor));
  QStringList runs;
  for (const LessonRun& r : l.runs)
    runs << (r.profile.empty() ? q(r.label) : tr("%1 (simulated %2)").arg(q(r.label), q(r.profile)));
  runsLabel_->setText(tr("Runs: %1").arg(runs.join(" · ")));
  question_->setText(q(l.prediction.question));
  for (QAbstractButton* b : choices_->buttons()) {
    choices_->removeButton(b);
    delete b;
  }
  QWidget* previous = list_;
  for (int i = 0; i < int(l.prediction.choices.size()); ++i) {
    auto* b = new WrappingRadioButton(q(l.prediction.choices[std::size_t(i)].text));
    choices_->addButton(b, i);
    choicesLayout_->addWidget(b);
    // New widgets join the end of the window's tab chain: put the answers where they
    // stand, between the lesson list and Run.
    setTabOrder(previous, b);
    previous = b;
  }
  setTabOrder(previous, run_);
  status_->setText(tr("Pick an answer, then press Run."));
  results_->setVisible(resultLesson_ == l.number);
  updateButtons();
}

void LessonsPanel::setStatus(const QString& text) {
  status_->setText(text);
  emit stateChanged();
}

void LessonsPanel::choose(int choice) {
  if (QAbstractButton* b = choices_->button(choice)) b->setChecked(true);
  updateButtons();
}

int LessonsPanel::chosen() const { return choices_->checkedId(); }

void LessonsPanel::updateButtons() {
  const bool playing = player_->playing();
  const bool busy = playing || window_.runController().running();
  run_->setEnabled(!busy && chosen() >= 0);
  run_->setToolTip(chosen() < 0 ? tr("Pick an answer first: predicting makes the result stick.") : QString());
  stop_->setEnabled(playing);
  list_->setEnabled(!playing);
  for (QAbstractButton* b : choices_->buttons()) b->setEnabled(!playing);
  backend_->setEnabled(!playing);
  reps_->setEnabled(!playing);
  previous_->setEnabled(!playing && currentLesson() > 1);
  next_->setEnabled(!playing && currentLesson() < int(builtinLessons().size()));
  emit stateChanged();
}

void LessonsPanel::run() { start(true); }

void LessonsPanel::start(bool needPrediction) {
  if (needPrediction && chosen() < 0) {
    setStatus(tr("Pick an answer first: predicting makes the result stick."));
    return;
  }
  results_->setVisible(false);
  resultLesson_ = 0;
  player_->start(builtinLessons()[std::size_t(list_->currentRow())]);
  updateButtons();
}

void LessonsPanel::onFinished(const LessonResult& result) {
  const Lesson& l = builtinLessons()[std::size_t(list_->currentRow())];
  result_ = result;
  resultLesson_ = l.number;
  const int mine = chosen(), observed = result.observedChoice;
  const auto choiceText = [&](int i) { return q(l.prediction.choices[std::size_t(i)].text); };
  QString feedback;
  if (observed >= 0 && observed == mine) {
    feedback = tr("<span style='color:#007a4d'><b>✓ Your prediction was right:</b></span> %1.").arg(choiceText(mine));
  } else if (observed >= 0 && mine < 0) {  // run from a clicker with no answer picked
    feedback = tr("<b>What happened:</b> %1.").arg(choiceText(observed));
  } else if (observed >= 0) {
    feedback = tr("<span style='color:#b03030'><b>✗ Not quite.</b></span> You predicted “%1”; what happened: <b>%2</b>.")
                   .arg(choiceText(mine), choiceText(observed));
  } else {
    feedback = tr("<b>None of the answers fits these runs exactly</b> (this device behaves differently from the one "
                  "the lesson was written for); the lesson expected “%1”.")
                   .arg(choiceText(l.prediction.answer));
  }
  feedback_->setText(feedback);
  QStringList lines = result.numbers.split('\n', Qt::SkipEmptyParts);
  for (QString& line : lines) line = line.trimmed();  // the engine indents for a terminal
  numbers_->setText(lines.join('\n'));
  setting_->setText(result.setting);
  setting_->setVisible(!result.setting.isEmpty());
  QStringList runs = result.runs.split('\n', Qt::SkipEmptyParts);
  for (QString& line : runs) line = line.trimmed();
  measuredRuns_->setText(runs.isEmpty() ? QString() : (result.measured ? tr("Runs (median of the repetitions):\n%1") : tr("Runs:\n%1")).arg(runs.join('\n')));
  measuredRuns_->setVisible(!runs.isEmpty());
  QStringList checks;
  for (const ClaimVerdict& c : result.checks) {
    const QString mark = c.verdict == Verdict::Holds   ? QStringLiteral("✓ ")
                         : c.verdict == Verdict::Fails ? QStringLiteral("✗ ")
                                                       : QStringLiteral("? ");
    checks << mark + q(formatClaim(c));
  }
  checks_->setText(tr("The lesson's claims, checked on %1:\n%2")
                       .arg(result.measured ? tr("the measured runs") : tr("these runs"), checks.join('\n')));
  showRun_->clear();
  for (std::size_t i = 0; i < l.runs.size() && i < result.traces.size(); ++i) showRun_->addItem(q(l.runs[i].label));
  showRun_->setCurrentIndex(showRun_->count() - 1);
  compare_->setEnabled(result.traces.size() >= 2);
  results_->setVisible(true);
  status_->setText(tr("Done: %n run(s). The timeline shows the last one; pick another below.", nullptr,
                      int(result.traces.size())));
  // What happened is the point: bring it into view in a low dock, once laid out.
  QTimer::singleShot(0, this, [this] { scroll_->ensureWidgetVisible(results_, 0, 0); });
  updateButtons();
  emit lessonFinished();
}

void LessonsPanel::onFailed(const QString& message) {
  status_->setText(message);
  updateButtons();
}

LessonsPanel::Stage LessonsPanel::stage() const {
  if (player_->playing()) return Stage::Running;
  return resultLesson_ == currentLesson() ? Stage::Results : Stage::Question;
}

bool LessonsPanel::stepForward() {
  switch (stage()) {
    case Stage::Question:
      if (window_.runController().running()) return false;  // a run of the controls is on screen
      start(false);
      return player_->playing();
    case Stage::Running: return false;
    case Stage::Results: return selectLesson(currentLesson() + 1);
  }
  return false;
}

bool LessonsPanel::stepBack() {
  switch (stage()) {
    case Stage::Running:
      player_->stop();
      return true;
    case Stage::Results:
      resultLesson_ = 0;  // the question again (the runs stay in the A/B panel and the timeline)
      showLesson();
      return true;
    case Stage::Question: return selectLesson(currentLesson() - 1);
  }
  return false;
}

QString LessonsPanel::titleText() const { return title_->text(); }
QString LessonsPanel::lookForText() const { return lookFor_->text(); }
QString LessonsPanel::questionText() const { return question_->text(); }

QStringList LessonsPanel::choiceTexts() const {
  QStringList out;
  for (QAbstractButton* b : choices_->buttons()) out << b->text();
  return out;
}

void LessonsPanel::showRun(int index) {
  if (index < 0 || std::size_t(index) >= result_.traces.size() || resultLesson_ == 0) return;
  const Lesson& l = builtinLessons()[std::size_t(resultLesson_ - 1)];
  window_.showTrace(result_.traces[std::size_t(index)],
                    tr("lesson %1 — %2").arg(l.number).arg(q(l.runs[std::size_t(index)].label)));
}

void LessonsPanel::compareFirstAndLast() {
  if (result_.traces.size() < 2 || resultLesson_ == 0) return;
  const Lesson& l = builtinLessons()[std::size_t(resultLesson_ - 1)];
  const std::size_t last = result_.traces.size() - 1;
  window_.compare().pin(result_.traces.front(), q(l.runs.front().label));
  window_.compare().setB(result_.traces[last], q(l.runs[last].label));
}

QString LessonsPanel::feedbackText() const { return feedback_->text(); }
QString LessonsPanel::numbersText() const { return numbers_->text(); }
QString LessonsPanel::measuredText() const { return setting_->text() + "\n" + measuredRuns_->text(); }
QString LessonsPanel::checksText() const { return checks_->text(); }
QString LessonsPanel::statusText() const { return status_->text(); }

}  // namespace pipescope::ui
