// `pipescope --help`, `--version` and the figure modes need no display: the app picks
// the offscreen platform itself (LaunchMode) before QApplication loads a plugin.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>

#include "app/LaunchMode.h"

using namespace pipescope::ui;

namespace {

/// Runs the GUI binary with no display and no platform set: what a user gets on a
/// server or over ssh without X forwarding.
int runWithoutDisplay(const QStringList& args, QString* out, QString* err) {
  QProcess p;
  auto env = QProcessEnvironment::systemEnvironment();
  for (const char* v : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"}) env.remove(v);
  p.setProcessEnvironment(env);
  p.start(PIPESCOPE_GUI, args);
  if (!p.waitForFinished(60000)) {
    p.kill();
    return -1;
  }
  *out = QString::fromLocal8Bit(p.readAllStandardOutput());
  *err = QString::fromLocal8Bit(p.readAllStandardError());
  return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

}  // namespace

TEST(HeadlessLaunch, HeadlessModesAreRecognisedFromTheArguments) {
  auto mode = [](std::initializer_list<const char*> args) {
    std::vector<const char*> argv{"pipescope"};
    argv.insert(argv.end(), args.begin(), args.end());
    return launchModeOf(int(argv.size()), argv.data());
  };
  EXPECT_EQ(mode({}), LaunchMode::Window);
  EXPECT_EQ(mode({"--open", "x.json"}), LaunchMode::Window);
  EXPECT_EQ(mode({"--measure-startup"}), LaunchMode::Window) << "it measures a real window";
  EXPECT_EQ(mode({"--help"}), LaunchMode::Headless);
  EXPECT_EQ(mode({"-h"}), LaunchMode::Headless);
  EXPECT_EQ(mode({"--version"}), LaunchMode::Headless);
  EXPECT_EQ(mode({"--screenshot", "a.png"}), LaunchMode::Headless);
  EXPECT_EQ(mode({"--screenshot=a.png"}), LaunchMode::Headless);
  EXPECT_EQ(mode({"--sweep-json", "s.json", "--screenshot", "a.png"}), LaunchMode::Headless);
  EXPECT_EQ(mode({"--", "--help"}), LaunchMode::Window);
}

TEST(HeadlessLaunch, HelpAndVersionWorkWithoutADisplay) {
  QString out, err;
  EXPECT_EQ(runWithoutDisplay({"--help"}, &out, &err), 0) << err.toStdString();
  EXPECT_TRUE(out.contains("--screenshot")) << out.toStdString();
  EXPECT_FALSE(err.contains("platform plugin")) << err.toStdString();
  EXPECT_EQ(runWithoutDisplay({"--version"}, &out, &err), 0) << err.toStdString();
  EXPECT_TRUE(out.contains("pipescope")) << out.toStdString();
}

TEST(HeadlessLaunch, AScreenshotNeedsNoPlatformSetByHand) {
  QString out, err;
  const QString path = QDir::temp().filePath("pipescope-headless-launch-test.png");
  QFile::remove(path);
  EXPECT_EQ(runWithoutDisplay({"--screenshot", path, "--preset", "naive", "--size", "1200x800"}, &out, &err), 0)
      << err.toStdString();
  EXPECT_TRUE(QFile::exists(path));
  QFile::remove(path);
}
