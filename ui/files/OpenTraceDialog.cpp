#include "files/OpenTraceDialog.h"

#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

#include "files/TraceFileActions.h"

namespace pipescope::ui::files {

OpenTraceDialog::OpenTraceDialog(QWidget* parent) : QFileDialog(parent, tr("Open trace")) {
  // The platform dialog cannot take extra fields; Qt's own can.
  setOption(QFileDialog::DontUseNativeDialog, true);
  setFileMode(QFileDialog::ExistingFile);
  setAcceptMode(QFileDialog::AcceptOpen);
  setNameFilter(TraceFileActions::openFilter());

  marker_ = new QLineEdit;
  marker_->setObjectName("iterationMarker");
  marker_->setPlaceholderText(tr("automatic: ProfilerStep#N, else a repeating record_function range"));
  marker_->setToolTip(tr("Imported traces: the name of the range (record_function / NVTX) that starts an iteration. "
                         "Each iteration becomes a batch of the analysis."));
  batchSize_ = new QSpinBox;
  batchSize_->setObjectName("batchSize");
  batchSize_->setRange(0, 1 << 20);
  batchSize_->setSpecialValueText(tr("unknown"));
  batchSize_->setToolTip(tr("Imported traces: samples per iteration, for samples/s and the derived configuration"));

  if (auto* grid = qobject_cast<QGridLayout*>(layout())) {
    const int row = grid->rowCount();
    grid->addWidget(new QLabel(tr("Iteration marker:")), row, 0);
    grid->addWidget(marker_, row, 1, 1, grid->columnCount() - 1);
    grid->addWidget(new QLabel(tr("Batch size:")), row + 1, 0);
    grid->addWidget(batchSize_, row + 1, 1);
  }
}

ImportOptions OpenTraceDialog::importOptions() const {
  ImportOptions o;
  o.iterations.marker = marker_->text().trimmed().toStdString();
  o.batchSize = batchSize_->value();
  return o;
}

}  // namespace pipescope::ui::files
