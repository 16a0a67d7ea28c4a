#pragma once
// The Lessons dock: the teaching sequence (builtinLessons()), and for the selected
// lesson its title, what to look for, a prediction to answer before pressing Run,
// then, once its runs have played live in the main window, whether the prediction
// was right, the numbers, and the lesson's claims checked on the measured runs.
#include <QWidget>

#include "lessons/LessonPlayer.h"

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QScrollArea;
class QSpinBox;
class QVBoxLayout;

namespace pipescope::ui {

class MainWindow;

class LessonsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LessonsPanel(MainWindow& window);

  /// 1-based; false for an unknown number.
  bool selectLesson(int number);
  int currentLesson() const;
  /// Picks a prediction (0-based choice), as the radio button does.
  void choose(int choice);
  int chosen() const;
  /// Runs the lesson; needs an answer picked first (predicting makes the result stick).
  void run();

  /// Where the lesson stands, for a presenter's clicker (PageDown / PageUp, Space).
  enum class Stage { Question, Running, Results };
  Stage stage() const;
  /// One step on: the question -> its runs (with the class's answer when one was
  /// picked: a clicker cannot pick one) -> what happened -> the next lesson's
  /// question. False when there is nothing further (the last lesson's results).
  bool stepForward();
  /// One step back: the runs are stopped, what happened goes back to the question,
  /// the question to the previous lesson as it was left (its results, if it has
  /// them). False at the first lesson's question.
  bool stepBack();

  // What the lesson says, for the presentation mode's lesson text.
  QString titleText() const;
  QString lookForText() const;
  QString questionText() const;
  QStringList choiceTexts() const;

  LessonPlayer& player() { return *player_; }
  QPushButton* runButton() const { return run_; }
  /// "Run on": 0 = the control panel's backend, 1 = the simulator, 2 = this GPU.
  QComboBox* backendBox() const { return backend_; }
  QPushButton* nextButton() const { return next_; }
  QPushButton* previousButton() const { return previous_; }
  QString feedbackText() const;
  QString numbersText() const;
  /// Where the runs ran and each measured run's median, spread and prediction.
  QString measuredText() const;
  QString checksText() const;
  QString statusText() const;
  const LessonResult& lastResult() const { return result_; }

 signals:
  void lessonFinished();
  /// Anything the lesson shows changed (lesson, answer, progress, results).
  void stateChanged();

 private:
  void showLesson();
  void start(bool needPrediction);
  void setStatus(const QString& text);
  void updateButtons();
  void onFinished(const LessonResult& result);
  void onFailed(const QString& message);
  void showRun(int index);
  void compareFirstAndLast();

  MainWindow& window_;
  LessonPlayer* player_;
  QScrollArea* scroll_;
  QListWidget* list_;
  QLabel* title_;
  QLabel* lookFor_;
  QLabel* runsLabel_;
  QLabel* question_;
  QWidget* choicesBox_;
  QVBoxLayout* choicesLayout_;
  QButtonGroup* choices_;
  QCheckBox* slowMotion_;
  QComboBox* backend_;
  QSpinBox* reps_;
  QPushButton* run_;
  QPushButton* stop_;
  QLabel* status_;
  QWidget* results_;
  QLabel* feedback_;
  QLabel* setting_;
  QLabel* measuredRuns_;
  QLabel* numbers_;
  QLabel* checks_;
  QComboBox* showRun_;
  QPushButton* compare_;
  QPushButton* previous_;
  QPushButton* next_;
  LessonResult result_;
  int resultLesson_ = 0;
};

}  // namespace pipescope::ui
