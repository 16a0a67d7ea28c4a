#pragma once
// Help › Keyboard shortcuts: every menu action that has a shortcut (read from the
// menus, so the list cannot go stale) plus the timeline's own keys and mouse use.
#include <QDialog>

class QMenuBar;

namespace pipescope::ui {

class ShortcutsDialog : public QDialog {
  Q_OBJECT
 public:
  ShortcutsDialog(const QMenuBar* menus, QWidget* parent = nullptr);
  /// (what, keys) rows in display order.
  static QList<QPair<QString, QString>> rows(const QMenuBar* menus);
};

}  // namespace pipescope::ui
