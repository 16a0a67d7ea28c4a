#include "app/ShortcutsDialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QTableWidget>
#include <QVBoxLayout>

namespace pipescope::ui {

namespace {

void collect(const QMenu* menu, const QString& path, QList<QPair<QString, QString>>& out) {
  for (QAction* a : menu->actions()) {
    const QString text = QString(a->text()).remove('&').remove(QStringLiteral("…"));
    if (a->menu()) {
      collect(a->menu(), path + " › " + text, out);
      continue;
    }
    QStringList keys;
    for (const QKeySequence& k : a->shortcuts()) keys << k.toString(QKeySequence::NativeText);
    if (!keys.isEmpty()) out.append({path + " › " + text, keys.join(", ")});
  }
}

}  // namespace

QList<QPair<QString, QString>> ShortcutsDialog::rows(const QMenuBar* menus, const QList<QAction*>& presentation) {
  QList<QPair<QString, QString>> out;
  if (menus)
    for (QAction* a : menus->actions())
      if (a->menu()) collect(a->menu(), QString(a->text()).remove('&'), out);
  using Q = QObject;
  for (const QAction* a : presentation) {
    QStringList keys;
    for (const QKeySequence& k : a->shortcuts()) keys << k.toString(QKeySequence::NativeText);
    out.append({Q::tr("Presentation › %1").arg(QString(a->text()).remove('&')), keys.join(", ")});
  }
  out.append({Q::tr("Timeline › Zoom in / out"), Q::tr("W / S, Ctrl+wheel (around the cursor)")});
  out.append({Q::tr("Timeline › Pan"), Q::tr("A / D, drag, Shift+wheel")});
  out.append({Q::tr("Timeline › Fit"), Q::tr("F")});
  out.append({Q::tr("Timeline › Select a range"), Q::tr("Shift+drag, or drag on the ruler; Esc clears")});
  out.append({Q::tr("Timeline › Op details"), Q::tr("hover an op")});
  out.append({Q::tr("Panels › Next / previous control"), Q::tr("Tab / Shift+Tab")});
  out.append({Q::tr("Lessons › Pick a lesson, an answer"), Q::tr("arrow keys in the list, in the answers")});
  out.append({Q::tr("Lessons › Run, Stop, Previous, Next"), Q::tr("Alt+U, Alt+T, Alt+P, Alt+N")});
  out.append({Q::tr("Sweep › Run, Cancel, Open, Save, Export"), Q::tr("Alt+W, Alt+C, Alt+O, Alt+S, Alt+X")});
  out.append({Q::tr("Sweep › Heatmap cell / open its timeline"), Q::tr("arrow keys / Enter")});
  return out;
}

ShortcutsDialog::ShortcutsDialog(const QMenuBar* menus, const QList<QAction*>& presentation, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(tr("Keyboard shortcuts"));
  auto* layout = new QVBoxLayout(this);
  const auto list = rows(menus, presentation);
  auto* table = new QTableWidget(int(list.size()), 2);
  table->setHorizontalHeaderLabels({tr("Action"), tr("Keys")});
  table->verticalHeader()->hide();
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->setSelectionMode(QAbstractItemView::NoSelection);
  for (int i = 0; i < int(list.size()); ++i) {
    table->setItem(i, 0, new QTableWidgetItem(list[i].first));
    table->setItem(i, 1, new QTableWidgetItem(list[i].second));
  }
  table->resizeColumnsToContents();
  table->horizontalHeader()->setStretchLastSection(true);
  layout->addWidget(table);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  resize(560, 480);
}

}  // namespace pipescope::ui
