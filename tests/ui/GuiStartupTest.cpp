// What starting the desktop app costs a user who never asks for CUDA: no CUDA
// library loaded up to the first painted frame (from the dynamic loader's own log),
// and nothing on stderr for --help and --version.
#include <gtest/gtest.h>
#include <unistd.h>

#include <QDir>
#include <QProcess>
#include <QProcessEnvironment>

#include "../LoaderLog.h"
#include "app/LaunchMode.h"

using pipescope::testing::cudaLibrariesAmong;
using pipescope::testing::LoaderLog;

namespace {

struct GuiRun {
  int exitCode = -1;
  QString out, err;
};

/// Runs the GUI binary with `env` changes applied to this process's environment.
GuiRun runGui(const QStringList& args, const std::vector<std::pair<std::string, std::string>>& set,
              const QStringList& unset = {}) {
  QProcess p;
  auto env = QProcessEnvironment::systemEnvironment();
  for (const QString& v : unset) env.remove(v);
  for (const auto& [name, value] : set) env.insert(QString::fromStdString(name), QString::fromStdString(value));
  env.insert("XDG_CONFIG_HOME", QDir::tempPath() + "/pipescope-gui-startup-test");  // never the user's settings
  p.setProcessEnvironment(env);
  p.start(PIPESCOPE_GUI, args);
  GuiRun r;
  if (!p.waitForFinished(60000)) {
    p.kill();
    p.waitForFinished();
    return r;
  }
  r.out = QString::fromLocal8Bit(p.readAllStandardOutput());
  r.err = QString::fromLocal8Bit(p.readAllStandardError());
  r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  return r;
}

std::string logDir(const char* name) {
  return ::testing::TempDir() + "gui-startup-" + std::to_string(::getpid()) + "-" + name;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

TEST(GuiStartup, FirstFrameLoadsNoCudaLibrary) {
  LoaderLog log(logDir("frame"));
  auto env = log.environment();
  env.emplace_back("QT_QPA_PLATFORM", "offscreen");
  const GuiRun r = runGui({"--measure-startup"}, env);
  ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
  ASSERT_TRUE(r.out.contains("first-frame-monotonic-ns ")) << r.out.toStdString();
  const auto files = log.loadedFiles();
  EXPECT_TRUE(files.count("libQt6Widgets.so.6")) << "the log lists what was loaded";
  EXPECT_EQ(joined(cudaLibrariesAmong(files)), "");
}

TEST(GuiStartup, HelpAndVersionLoadNoCudaLibrary) {
  for (const char* arg : {"--help", "--version"}) {
    LoaderLog log(logDir("help"));
    const GuiRun r = runGui({arg}, log.environment());
    ASSERT_EQ(r.exitCode, 0) << arg << ": " << r.err.toStdString();
    const auto files = log.loadedFiles();
    EXPECT_TRUE(files.count("libQt6Core.so.6")) << arg << ": the log lists what was loaded";
    EXPECT_EQ(joined(cudaLibrariesAmong(files)), "") << arg;
  }
}

TEST(GuiStartup, HelpAndVersionAreRecognisedAsTextOnly) {
  auto textOnly = [](std::initializer_list<const char*> args) {
    std::vector<const char*> argv{"pipescope"};
    argv.insert(argv.end(), args.begin(), args.end());
    return pipescope::ui::printsTextOnly(int(argv.size()), argv.data());
  };
  EXPECT_TRUE(textOnly({"--help"}));
  EXPECT_TRUE(textOnly({"-h"}));
  EXPECT_TRUE(textOnly({"-?"}));
  EXPECT_TRUE(textOnly({"--version"}));
  EXPECT_TRUE(textOnly({"-v"}));
  EXPECT_TRUE(textOnly({"--screenshot", "a.png", "--version"})) << "the parser prints the version and exits first";
  EXPECT_FALSE(textOnly({"--help-all"})) << "lists the GUI application's options too";
  EXPECT_FALSE(textOnly({}));
  EXPECT_FALSE(textOnly({"--measure-startup"}));
  EXPECT_FALSE(textOnly({"--", "--help"})) << "a file named --help";
}

TEST(GuiStartup, HelpAndVersionPrintNothingOnStderr) {
  // As a user starts it: on a desktop (here: the platform set), and on a server or over
  // ssh with no display and no platform set, and with no XDG_RUNTIME_DIR (a root
  // shell, a container, cron).
  const std::vector<std::pair<const char*, QStringList>> environments = {
      {"platform offscreen", {}},
      {"no display", {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"}},
      {"no display, no XDG_RUNTIME_DIR", {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR"}},
  };
  for (const auto& [name, unset] : environments) {
    std::vector<std::pair<std::string, std::string>> set;
    if (unset.isEmpty()) set.emplace_back("QT_QPA_PLATFORM", "offscreen");
    for (const char* arg : {"--help", "--version"}) {
      const GuiRun r = runGui({arg}, set, unset);
      EXPECT_EQ(r.exitCode, 0) << name << ", " << arg;
      EXPECT_FALSE(r.out.isEmpty()) << name << ", " << arg;
      EXPECT_EQ(r.err.toStdString(), "") << name << ", " << arg;
    }
  }
}

}  // namespace
