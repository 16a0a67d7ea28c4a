// File › Open Recent and `pipescope FILE`: what a desktop user expects of opening files.
#include <gtest/gtest.h>

#include <QAction>
#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QTemporaryDir>

#include "MainWindow.h"
#include "files/LaunchFile.h"
#include "files/RecentFiles.h"
#include "files/TraceFileActions.h"

using pipescope::ui::MainWindow;
using pipescope::ui::files::launchFile;
using pipescope::ui::files::RecentFiles;

namespace {

QString touch(const QTemporaryDir& dir, const QString& name) {
  const QString path = dir.filePath(name);
  QFile f(path);
  f.open(QIODevice::WriteOnly);
  f.write("x");
  return path;
}

QStringList menuPaths(QMenu* menu) {
  QStringList paths;
  for (QAction* a : menu->actions())
    if (!a->data().toString().isEmpty()) paths << a->data().toString();
  return paths;
}

}  // namespace

TEST(RecentFiles, NewestFirstWithoutDuplicatesAndCapped) {
  QTemporaryDir dir;
  QSettings settings(dir.filePath("settings.ini"), QSettings::IniFormat);
  RecentFiles recent(nullptr, &settings);
  const QString a = touch(dir, "a.pipescope"), b = touch(dir, "b.json");
  recent.add(a);
  recent.add(b);
  recent.add(a);
  EXPECT_EQ(recent.files(), (QStringList{a, b}));
  for (int i = 0; i < RecentFiles::kMax + 5; ++i) recent.add(touch(dir, QString("t%1.pipescope").arg(i)));
  EXPECT_EQ(recent.files().size(), RecentFiles::kMax);
  EXPECT_TRUE(recent.files().first().endsWith(QString("t%1.pipescope").arg(RecentFiles::kMax + 4)));
}

TEST(RecentFiles, SurviveARestartThroughTheSettings) {
  QTemporaryDir dir;
  const QString ini = dir.filePath("settings.ini"), a = touch(dir, "a.pipescope");
  {
    QSettings settings(ini, QSettings::IniFormat);
    RecentFiles(nullptr, &settings).add(a);
  }
  QSettings settings(ini, QSettings::IniFormat);
  EXPECT_EQ(RecentFiles(nullptr, &settings).files(), QStringList{a});
}

TEST(RecentFiles, TheMenuOffersExistingFilesAndForgetsDeletedOnes) {
  QTemporaryDir dir;
  QSettings settings(dir.filePath("settings.ini"), QSettings::IniFormat);
  RecentFiles recent(nullptr, &settings);
  const QString a = touch(dir, "a.pipescope"), gone = touch(dir, "gone.pipescope");
  recent.add(gone);
  recent.add(a);
  QFile::remove(gone);
  QWidget parent;
  QMenu* menu = recent.menu(&parent);
  EXPECT_EQ(menuPaths(menu), QStringList{a});
  EXPECT_EQ(settings.value(RecentFiles::kSettingsKey).toStringList(), QStringList{a});

  QString requested;
  QObject::connect(&recent, &RecentFiles::openRequested, [&](const QString& p) { requested = p; });
  for (QAction* act : menu->actions())
    if (act->data().toString() == a) act->trigger();
  EXPECT_EQ(requested, a);

  recent.clear();
  emit menu->aboutToShow();
  EXPECT_TRUE(menuPaths(menu).isEmpty());
}

TEST(RecentFiles, OpeningATraceInTheWindowAddsItToFileOpenRecent) {
  QTemporaryDir dir;
  MainWindow window;
  auto& files = window.traceFiles();
  files.recentFiles().clear();
  const QString trace = QDir::cleanPath(QStringLiteral(PIPESCOPE_FIXTURES_DIR "/pytorch-profiler-resnet18-pinned-2streams.json.gz"));
  if (!QFile::exists(trace)) GTEST_SKIP() << "fixture missing: " << trace.toStdString();
  files.openFile(trace);
  ASSERT_TRUE(files.waitForLoad());
  EXPECT_EQ(files.recentFiles().files().value(0), trace);

  QMenu* fileMenu = nullptr;
  for (QAction* a : window.menuBar()->actions())
    if (a->text().remove('&') == "File") fileMenu = a->menu();
  ASSERT_NE(fileMenu, nullptr);
  QMenu* recentMenu = nullptr;
  for (QAction* a : fileMenu->actions())
    if (a->menu() && a->text().remove('&') == "Open Recent") recentMenu = a->menu();
  ASSERT_NE(recentMenu, nullptr);
  emit recentMenu->aboutToShow();
  EXPECT_EQ(menuPaths(recentMenu).value(0), trace);
  files.recentFiles().clear();
}

TEST(LaunchFile, APositionalFileIsOpenedAtStart) {
  EXPECT_EQ(launchFile(QStringList{"/tmp/a.pipescope"}, QString()), "/tmp/a.pipescope");
  EXPECT_EQ(launchFile(QStringList{"/tmp/a.pipescope"}, "/tmp/b.json"), "/tmp/a.pipescope");
  EXPECT_EQ(launchFile(QStringList{}, "/tmp/b.json"), "/tmp/b.json");  // --open FILE
  EXPECT_EQ(launchFile(QStringList{}, QString()), QString());
}

TEST(LaunchFile, AFileUrlBecomesItsPath) {
  EXPECT_EQ(launchFile(QStringList{"file:///tmp/my%20trace.pipescope"}, QString()), "/tmp/my trace.pipescope");
}

TEST(LaunchFile, TheParserAcceptsAFileArgument) {
  QCommandLineParser parser;
  parser.addOption({"open", "open", "FILE"});
  pipescope::ui::files::addLaunchFileArgument(parser);
  ASSERT_TRUE(parser.parse({"pipescope", "trace.pipescope"}));
  EXPECT_EQ(launchFile(parser), "trace.pipescope");
  EXPECT_TRUE(parser.helpText().contains("file"));
}
