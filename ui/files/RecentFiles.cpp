#include "files/RecentFiles.h"

#include <QAction>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace pipescope::ui::files {

RecentFiles::RecentFiles(QObject* parent, QSettings* settings)
    : QObject(parent), settings_(settings ? settings : new QSettings(this)) {}

QStringList RecentFiles::stored() const { return settings_->value(kSettingsKey).toStringList(); }

void RecentFiles::store(const QStringList& list) {
  settings_->setValue(kSettingsKey, list);
  settings_->sync();  // another instance started next sees it
}

void RecentFiles::add(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  QStringList list = stored();
  list.removeAll(absolute);
  list.prepend(absolute);
  while (list.size() > kMax) list.removeLast();
  store(list);
}

void RecentFiles::clear() { store({}); }

QStringList RecentFiles::files() const {
  QStringList existing;
  for (const QString& f : stored())
    if (QFileInfo::exists(f)) existing.append(f);
  return existing;
}

QMenu* RecentFiles::menu(QWidget* parent) {
  auto* m = new QMenu(tr("Open &Recent"), parent);
  connect(m, &QMenu::aboutToShow, this, [this, m] { rebuild(m); });
  rebuild(m);  // so the menu is right before it is first shown (and testable)
  return m;
}

void RecentFiles::rebuild(QMenu* m) {
  m->clear();
  const QStringList list = files();
  if (list != stored()) store(list);  // forget files that are gone
  for (int i = 0; i < list.size(); ++i) {
    const QString path = list[i];
    // &1..&9 and &0 as keyboard accelerators, the full path as the tooltip.
    const QString label = i < 10 ? QStringLiteral("&%1  %2").arg((i + 1) % 10).arg(QFileInfo(path).fileName())
                                 : QFileInfo(path).fileName();
    QAction* a = m->addAction(label, this, [this, path] { emit openRequested(path); });
    a->setToolTip(path);
    a->setStatusTip(path);
    a->setData(path);
  }
  if (list.isEmpty()) m->addAction(tr("No recent traces"))->setEnabled(false);
  m->addSeparator();
  QAction* clearAction = m->addAction(tr("&Clear menu"), this, &RecentFiles::clear);
  clearAction->setEnabled(!list.isEmpty());
}

}  // namespace pipescope::ui::files
