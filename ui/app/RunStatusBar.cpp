#include "app/RunStatusBar.h"

#include <QLabel>
#include <QLocale>

namespace pipescope::ui {

RunStatusBar::RunStatusBar(QWidget* parent) : QStatusBar(parent) {
  backend_ = new QLabel;
  state_ = new QLabel;
  events_ = new QLabel;
  backend_->setObjectName("statusBackend");
  state_->setObjectName("statusRunState");
  events_->setObjectName("statusEvents");
  for (QLabel* l : {backend_, state_, events_}) {
    l->setContentsMargins(8, 0, 8, 0);
    addPermanentWidget(l);
  }
  setRunState(tr("Idle"));
  setEventCount(0);
}

void RunStatusBar::setBackend(const QString& text, const QString& tip) {
  backend_->setText(text);
  backend_->setToolTip(tip);
}

void RunStatusBar::setRunState(const QString& text) { state_->setText(text); }

void RunStatusBar::setEventCount(std::uint64_t recorded, std::uint64_t dropped) {
  QString s = tr("%1 events recorded").arg(QLocale().toString(qulonglong(recorded)));
  if (dropped > 0) s += tr(" (oldest %1 dropped by the live window)").arg(QLocale().toString(qulonglong(dropped)));
  events_->setText(s);
}

QString RunStatusBar::backendText() const { return backend_->text(); }
QString RunStatusBar::runStateText() const { return state_->text(); }
QString RunStatusBar::eventsText() const { return events_->text(); }

}  // namespace pipescope::ui
