#pragma once
// File › Open Recent: the traces opened last (newest first, at most kMax), kept in
// QSettings so they survive a restart, as desktop users expect. A file that has
// gone since is dropped when the menu opens rather than offered and failing.
#include <QObject>
#include <QString>
#include <QStringList>

class QMenu;
class QSettings;

namespace pipescope::ui::files {

class RecentFiles : public QObject {
  Q_OBJECT
 public:
  static constexpr int kMax = 10;
  static constexpr const char* kSettingsKey = "files/recent";

  /// `settings` null: the application's QSettings (organisation and name from main()).
  /// Otherwise it must outlive this object (tests pass one on a temporary file).
  explicit RecentFiles(QObject* parent, QSettings* settings = nullptr);

  /// Puts `path` first (as an absolute path), removing an older entry for it.
  void add(const QString& path);
  void clear();
  /// Newest first, only files that still exist.
  QStringList files() const;
  /// The "Open &Recent" submenu; rebuilt from the list each time it is shown.
  QMenu* menu(QWidget* parent);

 signals:
  void openRequested(const QString& path);

 private:
  QStringList stored() const;
  void store(const QStringList& list);
  void rebuild(QMenu* menu);
  QSettings* settings_;
};

}  // namespace pipescope::ui::files
