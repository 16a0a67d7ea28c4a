#pragma once
// Help › Keyboard shortcuts: every menu action that has a shortcut (read from the
// menus, so the list cannot go stale), the presentation mode's keys (read from its
// actions), and the keys of the timeline and the panels that are not actions.
#include <QDialog>

class QAction;
class QMenuBar;

namespace pipescope::ui {

class ShortcutsDialog : public QDialog {
  Q_OBJECT
 public:
  ShortcutsDialog(const QMenuBar* menus, const QList<QAction*>& presentation = {}, QWidget* parent = nullptr);
  /// (what, keys) rows in display order.
  static QList<QPair<QString, QString>> rows(const QMenuBar* menus, const QList<QAction*>& presentation = {});
};

}  // namespace pipescope::ui
