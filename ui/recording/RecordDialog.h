#pragma once
// Run › Record a program…: the program, its arguments, the working folder and extra
// environment variables; the Record button stays disabled, with a sentence saying
// why, until the form describes a program that can start (RecordForm).
#include <QDialog>
#include <optional>

#include "recording/RecordForm.h"

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

namespace pipescope::ui {

class RecordDialog : public QDialog {
  Q_OBJECT
 public:
  explicit RecordDialog(QWidget* parent = nullptr);

  void setForm(const RecordForm& form);
  RecordForm form() const;
  /// The request, when the form is valid.
  std::optional<record::RecordRequest> request() const;
  /// What to fix, or empty when the form is valid.
  QString problem() const { return problem_; }

  QLineEdit& programEdit() { return *program_; }
  QLineEdit& argumentsEdit() { return *arguments_; }
  QLineEdit& folderEdit() { return *folder_; }
  QPlainTextEdit& environmentEdit() { return *environment_; }
  QPushButton* recordButton() const;

 private:
  void revalidate();

  QLineEdit* program_;
  QLineEdit* arguments_;
  QLineEdit* folder_;
  QPlainTextEdit* environment_;
  QSpinBox* device_;
  QLabel* problemLabel_;
  QDialogButtonBox* buttons_;
  QString problem_;
};

}  // namespace pipescope::ui
