#include "app/PanelFocus.h"

#include <QAction>
#include <QCoreApplication>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>

namespace pipescope::ui {

namespace {

struct Panel {
  const char* objectName;
  const char* title;
};
const Panel kPanels[] = {{"dock.controls", QT_TRANSLATE_NOOP("PanelFocus", "&Controls")},
                         {"dock.lessons", QT_TRANSLATE_NOOP("PanelFocus", "&Lessons")},
                         {"dock.metrics", QT_TRANSLATE_NOOP("PanelFocus", "&Metrics")},
                         {"dock.advice", QT_TRANSLATE_NOOP("PanelFocus", "&Advice")},
                         {"dock.charts", QT_TRANSLATE_NOOP("PanelFocus", "C&harts")},
                         {"dock.compare", QT_TRANSLATE_NOOP("PanelFocus", "A/&B comparison")},
                         {"dock.sweep", QT_TRANSLATE_NOOP("PanelFocus", "&Sweep")}};

/// The first widget of `root` that Tab would stop at.
QWidget* firstFocusable(QWidget* root) {
  for (QWidget* w : root->findChildren<QWidget*>())
    if ((w->focusPolicy() & Qt::TabFocus) && w->isVisible() && w->isEnabled() && !w->focusProxy()) return w;
  return nullptr;
}

}  // namespace

bool focusPanel(QMainWindow& window, const char* objectName) {
  auto* dock = window.findChild<QDockWidget*>(objectName);
  if (!dock) return false;
  dock->show();
  dock->raise();
  if (QWidget* w = dock->widget() ? firstFocusable(dock->widget()) : nullptr) w->setFocus(Qt::ShortcutFocusReason);
  else dock->setFocus(Qt::ShortcutFocusReason);
  return true;
}

QList<QAction*> addGoToPanelMenu(QMainWindow& window, QMenu& view, QWidget& timeline) {
  QMenu* menu = view.addMenu(QObject::tr("&Go to panel"));
  QList<QAction*> actions;
  QAction* toTimeline = menu->addAction(QObject::tr("&Timeline"));
  toTimeline->setShortcut(QKeySequence(Qt::ALT | Qt::Key_0));
  QObject::connect(toTimeline, &QAction::triggered, &timeline, [&timeline] { timeline.setFocus(Qt::ShortcutFocusReason); });
  actions << toTimeline;
  int key = 1;
  for (const Panel& p : kPanels) {
    QAction* a = menu->addAction(QCoreApplication::translate("PanelFocus", p.title));
    a->setShortcut(QKeySequence(Qt::ALT | Qt::Key(Qt::Key_0 + key++)));
    const char* name = p.objectName;
    QObject::connect(a, &QAction::triggered, &window, [&window, name] { focusPanel(window, name); });
    actions << a;
  }
  return actions;
}

}  // namespace pipescope::ui
