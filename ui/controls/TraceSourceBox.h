#pragma once
// The Controls dock's account of an opened trace file: what is on screen is a file
// (its name, format, device, timing source), not the preset's settings. It offers
// "Run this configuration" only when the file carries one (pipescope's own traces);
// "New run" goes back to the settings.
#include <QGroupBox>
#include <QString>

class QLabel;
class QPushButton;

namespace pipescope::ui {

struct TraceSource {
  QString fileName;
  QString format;                 ///< "Chrome trace JSON", "pipescope trace"
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
