#pragma once
// The Controls dock's account of an opened trace file: what is on screen is a file
// (its name, format, device, timing source), or a folder of a job's ranks, not the
// preset's settings. It offers
// "Run this configuration" only when the file carries one (pipescope's own traces);
// "New run" goes back to the settings.
#include <QGroupBox>
#include <QString>

class QLabel;
class QPushButton;

namespace pipescope::ui {

struct TraceSource {
  QString fileName;               ///< the file, or the folder of a job's ranks
  bool folder = false;            ///< fileName is a folder (of several ranks' traces)
  int fileCount = 1;              ///< several: the ranks of a job, merged into one trace
  QString format;                 ///< "Chrome trace JSON", "4 PyTorch profiler traces (ranks 0-3 of 4)"
  QString device;                 ///< the device the trace was recorded on, as the file says
  QString timingSource;           ///< how its times were taken
  bool hasConfiguration = false;  ///< the file carries the pipeline configuration it ran
};

class TraceSourceBox : public QGroupBox {
  Q_OBJECT
 public:
  explicit TraceSourceBox(QWidget* parent = nullptr);
  void setSource(const TraceSource& source);
  const TraceSource& source() const { return source_; }
  /// The facts as shown (tests).
  QString text() const;
  QPushButton* runButton() const { return run_; }
  QPushButton* newRunButton() const { return newRun_; }

 signals:
  void runConfigurationRequested();
  void newRunRequested();

 private:
  TraceSource source_;
  QLabel* facts_;
  QLabel* note_;
  QPushButton* run_;
  QPushButton* newRun_;
};

}  // namespace pipescope::ui
