#pragma once
// Run › Record a program… and Run › Stop and end the program: the dialog, the
// recording controller, and the hooks that show a recording in the window exactly as
// a run is shown (MainWindow::beginLiveTrace/liveTick/endLiveTrace). Run › Stop stops
// a recording and leaves the program running.
#include <QObject>
#include <memory>

#include "recording/RecordForm.h"

class QAction;

namespace pipescope::ui {

class MainWindow;
class RecordController;

class RecordActions : public QObject {
  Q_OBJECT
 public:
  explicit RecordActions(MainWindow& window);
  QAction* recordAction() const { return record_; }
  QAction* stopAndEndAction() const { return stopAndEnd_; }
  RecordController& controller() { return *controller_; }

  /// Starts recording `request` (as the dialog's Record button does); false when it
  /// could not start (the window shows why).
  bool start(const record::RecordRequest& request);
  bool recording() const;
  void stop();  ///< the recording stops; the program runs on
  /// The form the dialog opens with (the last one recorded).
  const RecordForm& lastForm() const { return lastForm_; }

 private:
  void openDialog();

  MainWindow& window_;
  RecordController* controller_;
  QAction* record_;
  QAction* stopAndEnd_;
  RecordForm lastForm_;
};

}  // namespace pipescope::ui
