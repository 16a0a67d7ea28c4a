#include "app/RunStatusBar.h"

#include <QLocale>

#include "widgets/ElidedLabel.h"

namespace pipescope::ui {

RunStatusBar::RunStatusBar(QWidget* parent) : QStatusBar(parent) {
  backend_ = new ElidedLabel;
  state_ = new ElidedLabel;
  events_ = new ElidedLabel;
  backend_->setObjectName("statusBackend");
  state_->setObjectName("statusRunState");
  events_->setObjectName("statusEvents");
  for (ElidedLabel* l : {backend_, state_, events_}) {
    l->setContentsMargins(8, 0, 8, 0);
    addPermanentWidget(l);
  }
  setRunState(tr("Idle"));
  setEventCount(0);
}

void RunStatusBar::setBackend(const QString& text, const QString& tip) {
  backend_->setFullText(text, tip);
}

void RunStatusBar::setRunState(const QString& text) { state_->setFullText(text); }

void RunStatusBar::setEventCount(std::uint64_t recorded, std::uint64_t dropped) {
  QString s = tr("%1 events recorded").arg(QLocale().toString(qulonglong(recorded)));
  if (dropped > 0) s += tr(" (oldest %1 dropped by the live window)").arg(QLocale().toString(qulonglong(dropped)));
  events_->setFullText(s);
}

QString RunStatusBar::backendText() const { return backend_->fullText(); }
QString RunStatusBar::runStateText() const { return state_->fullText(); }
QString RunStatusBar::eventsText() const { return events_->fullText(); }

}  // namespace pipescope::ui
