#pragma once
// File › Open trace: a file dialog with the two things an imported trace cannot say
// for itself: the range that starts an iteration (when the automatic choice is wrong)
// and the batch size (for samples/s and the derived configuration).
#include <QFileDialog>

#include "io/ImportOptions.h"

class QLineEdit;
class QSpinBox;

namespace pipescope::ui::files {

class OpenTraceDialog : public QFileDialog {
  Q_OBJECT
 public:
  explicit OpenTraceDialog(QWidget* parent = nullptr);

  ImportOptions importOptions() const;
  QLineEdit& markerEdit() { return *marker_; }
  QSpinBox& batchSizeBox() { return *batchSize_; }

 private:
  QLineEdit* marker_;
  QSpinBox* batchSize_;
};

}  // namespace pipescope::ui::files
