#include "metrics/MetricsPanel.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QVBoxLayout>

#include "metrics/MetricsRows.h"
#include "widgets/VerticalScrollArea.h"

namespace pipescope::ui {

namespace {
void clearForm(QFormLayout* form) {
  while (form->rowCount() > 0) form->removeRow(0);
}
}  // namespace

MetricsPanel::MetricsPanel(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  auto* inner = new QWidget;
  auto* layout = new QVBoxLayout(inner);

  sentence_ = new QLabel(tr("Start a run or open a trace to see its figures."));
  sentence_->setWordWrap(true);
  sentence_->setObjectName("bottleneckSentence");
  sentence_->setStyleSheet("font-weight: 600;");
  layout->addWidget(sentence_);

  auto* runBox = new QGroupBox(tr("Whole run"));
  form_ = new QFormLayout(runBox);
  form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  layout->addWidget(runBox);
  sections_ = new QVBoxLayout;
  sections_->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(sections_);

  selectionBox_ = new QGroupBox(tr("Selected range"));
  auto* selectionLayout = new QVBoxLayout(selectionBox_);
  selectionRange_ = new QLabel;
  selectionRange_->setWordWrap(true);
  selectionRange_->setObjectName("selectionRange");
  selectionLayout->addWidget(selectionRange_);
  selectionForm_ = new QFormLayout;
  selectionLayout->addLayout(selectionForm_);
  selectionForm_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  selectionBox_->setVisible(false);
  layout->addWidget(selectionBox_);
  layout->addStretch(1);
  outer->addWidget(new VerticalScrollArea(inner));
}

void MetricsPanel::fill(QFormLayout* form, const Metrics& m) {
  const auto rows = metricsRows(m);
  // Rows are updated in place at 4 Hz during a run; rebuilding them would flicker.
  if (form->rowCount() != int(rows.size())) {
    clearForm(form);
    for (const auto& row : rows) {
      auto* label = new QLabel(row.label);
      auto* value = new QLabel;
      value->setTextInteractionFlags(Qt::TextSelectableByMouse);
      value->setWordWrap(true);
      form->addRow(label, value);
    }
  }
  for (int i = 0; i < int(rows.size()); ++i) {
    auto* label = qobject_cast<QLabel*>(form->itemAt(i, QFormLayout::LabelRole)->widget());
    auto* value = qobject_cast<QLabel*>(form->itemAt(i, QFormLayout::FieldRole)->widget());
    label->setText(rows[std::size_t(i)].label);
    value->setText(rows[std::size_t(i)].value);
    label->setToolTip(rows[std::size_t(i)].tip);
    value->setToolTip(rows[std::size_t(i)].tip);
  }
}

void MetricsPanel::setMetrics(const Metrics& m) {
  fill(form_, m);
  sentence_->setText(m.bottleneckSentence.empty() ? tr("No complete batch yet.")
                                                  : QString::fromStdString(m.bottleneckSentence));
  emit metricsShown(m);
}

void MetricsPanel::clear() {
  clearForm(form_);
  sentence_->setText(tr("Start a run or open a trace to see its figures."));
  clearSelection();
  emit cleared();
}

void MetricsPanel::addSection(QWidget* section) { sections_->addWidget(section); }

void MetricsPanel::setSelection(const Metrics& m, std::int64_t fromNs, std::int64_t toNs) {
  fill(selectionForm_, m);
  selectionRange_->setText(tr("%1 – %2 (%3), dragged on the timeline")
                               .arg(formatDurationNs(double(fromNs)), formatDurationNs(double(toNs)),
                                    formatDurationNs(double(toNs - fromNs))));
  selectionBox_->setVisible(true);
}

void MetricsPanel::clearSelection() {
  clearForm(selectionForm_);
  selectionBox_->setVisible(false);
}

QString MetricsPanel::value(const QString& label) const {
  for (int i = 0; i < form_->rowCount(); ++i) {
    auto* l = qobject_cast<QLabel*>(form_->itemAt(i, QFormLayout::LabelRole)->widget());
    if (l && l->text() == label) return qobject_cast<QLabel*>(form_->itemAt(i, QFormLayout::FieldRole)->widget())->text();
  }
  return {};
}

QString MetricsPanel::bottleneckSentence() const { return sentence_->text(); }

}  // namespace pipescope::ui
