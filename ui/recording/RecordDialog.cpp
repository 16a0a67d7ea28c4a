#include "recording/RecordDialog.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace pipescope::ui {

namespace {
QWidget* withBrowse(QLineEdit* edit, QPushButton* browse) {
  auto* w = new QWidget;
  auto* l = new QHBoxLayout(w);
  l->setContentsMargins(0, 0, 0, 0);
  l->addWidget(edit, 1);
  l->addWidget(browse);
  return w;
}
}  // namespace

RecordDialog::RecordDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Record a program"));
  setObjectName("RecordDialog");
  auto* intro = new QLabel(tr("Runs a CUDA program of yours and shows its GPU timeline live, as for a pipescope run: "
                              "every kernel, copy and synchronisation, the CUDA calls of each thread and its NVTX "
                              "ranges. The program is not changed; it is recorded through CUDA's injection hook "
                              "(CUPTI)."));
  intro->setWordWrap(true);
  program_ = new QLineEdit;
  program_->setObjectName("record.program");
  program_->setPlaceholderText(tr("python3, ./train, /opt/app/bin/infer"));
  auto* browseProgram = new QPushButton(tr("Browse…"));
  arguments_ = new QLineEdit;
  arguments_->setObjectName("record.arguments");
  arguments_->setPlaceholderText(tr("train.py --epochs 1   (split as a shell would; quote spaces)"));
  folder_ = new QLineEdit;
  folder_->setObjectName("record.folder");
  folder_->setPlaceholderText(tr("the folder pipescope was started in"));
  auto* browseFolder = new QPushButton(tr("Browse…"));
  environment_ = new QPlainTextEdit;
  environment_->setObjectName("record.environment");
  environment_->setPlaceholderText(tr("NAME=VALUE, one per line, e.g. CUDA_VISIBLE_DEVICES=0"));
  environment_->setTabChangesFocus(true);
  environment_->setFixedHeight(environment_->fontMetrics().lineSpacing() * 4 + 12);
  device_ = new QSpinBox;
  device_->setObjectName("record.device");
  device_->setRange(-1, 63);
  device_->setSpecialValueText(tr("all devices"));
  device_->setValue(-1);
  device_->setToolTip(tr("Record only this CUDA device's work, as the program numbers its devices"));

  auto* form = new QFormLayout;
  form->addRow(tr("&Program:"), withBrowse(program_, browseProgram));
  form->addRow(tr("&Arguments:"), arguments_);
  form->addRow(tr("&Working folder:"), withBrowse(folder_, browseFolder));
  form->addRow(tr("&Environment:"), environment_);
  form->addRow(tr("&GPU:"), device_);
  problemLabel_ = new QLabel;
  problemLabel_->setObjectName("record.problem");
  problemLabel_->setWordWrap(true);
  problemLabel_->setStyleSheet("color: #b00020;");
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Cancel);
  buttons_->addButton(tr("&Record"), QDialogButtonBox::AcceptRole)->setObjectName("record.start");
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(intro);
  layout->addLayout(form);
  layout->addWidget(problemLabel_);
  layout->addWidget(buttons_);
  resize(640, sizeHint().height());

  connect(buttons_, &QDialogButtonBox::accepted, this, [this] {
    if (problem_.isEmpty()) accept();
  });
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(browseProgram, &QPushButton::clicked, this, [this] {
    const QString f = QFileDialog::getOpenFileName(this, tr("Program to record"), folder_->text());
    if (!f.isEmpty()) program_->setText(f);
  });
  connect(browseFolder, &QPushButton::clicked, this, [this] {
    const QString d = QFileDialog::getExistingDirectory(this, tr("Working folder"), folder_->text());
    if (!d.isEmpty()) folder_->setText(d);
  });
  for (QLineEdit* e : {program_, arguments_, folder_}) connect(e, &QLineEdit::textChanged, this, &RecordDialog::revalidate);
  connect(environment_, &QPlainTextEdit::textChanged, this, &RecordDialog::revalidate);
  revalidate();
}

QPushButton* RecordDialog::recordButton() const { return buttons_->findChild<QPushButton*>("record.start"); }

void RecordDialog::setForm(const RecordForm& f) {
  program_->setText(f.program);
  arguments_->setText(f.arguments);
  folder_->setText(f.workingDirectory);
  environment_->setPlainText(f.environment);
  device_->setValue(f.device);
  revalidate();
}

RecordForm RecordDialog::form() const {
  RecordForm f;
  f.program = program_->text();
  f.arguments = arguments_->text();
  f.workingDirectory = folder_->text();
  f.environment = environment_->toPlainText();
  f.device = device_->value();
  return f;
}

std::optional<record::RecordRequest> RecordDialog::request() const {
  QString ignored;
  return form().request(&ignored);
}

void RecordDialog::revalidate() {
  problem_.clear();
  form().request(&problem_);
  problemLabel_->setText(problem_);
  problemLabel_->setVisible(!problem_.isEmpty());
  if (QPushButton* b = recordButton()) b->setEnabled(problem_.isEmpty());
}

}  // namespace pipescope::ui
