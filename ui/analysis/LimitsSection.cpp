#include "analysis/LimitsSection.h"

#include <QLabel>
#include <QVBoxLayout>

#include "analysis/LimitsBar.h"

namespace pipescope::ui {

namespace {
QLabel* wrapped(const char* name) {
  auto* l = new QLabel;
  l->setObjectName(name);
  l->setWordWrap(true);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return l;
}
}  // namespace

LimitsSection::LimitsSection(QWidget* parent) : QGroupBox(tr("Limits and waits"), parent) {
  setObjectName("limitsSection");
  auto* layout = new QVBoxLayout(this);
  bar_ = new LimitsBar;
  bar_->setToolTip(tr("Full overlap: max(h, k, d) per batch plus one pipeline fill (the ideal bound). "
                      "One direction: compute overlaps one copy direction, the other runs in series. "
                      "No overlap: h + k + d per batch."));
  layout->addWidget(bar_);
  position_ = wrapped("limitsPosition");
  critical_ = wrapped("limitsCritical");
  critical_->setStyleSheet("font-weight: 600;");
  waits_ = wrapped("waitSummary");
  layout->addWidget(position_);
  layout->addWidget(critical_);
  layout->addWidget(waits_);
  clear();
}

void LimitsSection::setLimits(const Limits& l) {
  bar_->setLimits(l);
  position_->setText(QString::fromStdString(l.positionSentence));
  critical_->setText(QString::fromStdString(l.criticalSentence));
  critical_->setVisible(!critical_->text().isEmpty());
}

void LimitsSection::setWaitSentences(const QStringList& sentences) {
  waits_->setText(sentences.isEmpty() ? tr("No GPU op waited noticeably.")
                                      : tr("Wait causes: ") + sentences.join(' '));
}

void LimitsSection::clear() {
  bar_->clear();
  position_->clear();
  critical_->clear();
  waits_->clear();
}

QString LimitsSection::criticalText() const { return critical_->text(); }
QString LimitsSection::positionText() const { return position_->text(); }
QString LimitsSection::waitsText() const { return waits_->text(); }

}  // namespace pipescope::ui
