#include "controls/TraceSourceBox.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace pipescope::ui {

TraceSourceBox::TraceSourceBox(QWidget* parent) : QGroupBox(tr("Showing a trace file"), parent) {
  setObjectName("traceSource");
  auto* layout = new QVBoxLayout(this);
  facts_ = new QLabel;
  facts_->setWordWrap(true);
  facts_->setTextFormat(Qt::PlainText);
  facts_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(facts_);
  note_ = new QLabel;
  note_->setWordWrap(true);
  note_->setStyleSheet("color: palette(mid); font-style: italic;");
  layout->addWidget(note_);
  auto* buttons = new QHBoxLayout;
  run_ = new QPushButton(tr("Run this configuration"));
  run_->setToolTip(tr("Load the configuration this trace was recorded with into the settings and start a run."));
  newRun_ = new QPushButton(tr("New run…"));
  newRun_->setToolTip(tr("Back to the preset and settings, to start a run of your own."));
  buttons->addWidget(run_);
  buttons->addWidget(newRun_);
  layout->addLayout(buttons);
  connect(run_, &QPushButton::clicked, this, &TraceSourceBox::runConfigurationRequested);
  connect(newRun_, &QPushButton::clicked, this, &TraceSourceBox::newRunRequested);
}

void TraceSourceBox::setSource(const TraceSource& s) {
  source_ = s;
  const bool several = s.fileCount > 1;
  setTitle(several ? tr("Showing %1 trace files").arg(s.fileCount) : tr("Showing a trace file"));
  const QString place = s.folder ? tr("Folder: %1") : several ? tr("Files: %1") : tr("File: %1");
  QStringList lines{place.arg(s.fileName), tr("Format: %1").arg(s.format)};
  if (!s.device.isEmpty()) lines << (several ? tr("Devices: %1") : tr("Device: %1")).arg(s.device);
  if (!s.timingSource.isEmpty()) lines << tr("Timing: %1").arg(s.timingSource);
  facts_->setText(lines.join('\n'));
  if (several)
    note_->setText(s.hasConfiguration
                       ? tr("The files carry the pipeline configuration they were recorded with.")
                       : tr("The files carry no pipescope configuration (profiles of another program): figures "
                            "that need one read \"n/a\"."));
  else
    note_->setText(s.hasConfiguration
                       ? tr("The file carries the pipeline configuration it was recorded with.")
                       : tr("The file carries no pipescope configuration (a profile of another program): figures "
                            "that need one read \"n/a\"."));
  run_->setVisible(s.hasConfiguration);
}

QString TraceSourceBox::text() const { return title() + '\n' + facts_->text() + '\n' + note_->text(); }

}  // namespace pipescope::ui
