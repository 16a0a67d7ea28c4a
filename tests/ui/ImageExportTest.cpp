// Image exports go through the engine's OutputFile (issue 16): a PNG or SVG written
// over an existing file keeps its mode, through a symbolic link updates the target,
// and into a FIFO streams instead of replacing it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <QDir>
#include <QFile>
#include <QPainter>
#include <QTemporaryDir>
#include <filesystem>
#include <future>
#include <fstream>
#include <sstream>

#include "export/ImageExport.h"

namespace pipescope::ui {
namespace {

void paintSomething(QPainter& p, const QRect& r) { p.fillRect(r.adjusted(4, 4, -4, -4), Qt::darkCyan); }

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ImageExport, RewriteKeepsModeAndLinkStays) {
  QTemporaryDir dir;
  const QString png = dir.filePath("figure.png");
  QString error;
  ASSERT_TRUE(saveImage(png, QSize(40, 30), paintSomething, "t", &error)) << error.toStdString();
  ASSERT_EQ(::chmod(QFile::encodeName(png).constData(), 0640), 0);
  ASSERT_TRUE(saveImage(png, QSize(50, 30), paintSomething, "t", &error)) << error.toStdString();
  struct stat st {};
  ASSERT_EQ(::stat(QFile::encodeName(png).constData(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, mode_t(0640));

  const QString link = dir.filePath("link.svg");
  std::filesystem::create_symlink("real.svg", link.toStdString());
  ASSERT_TRUE(saveImage(link, QSize(40, 30), paintSomething, "t", &error)) << error.toStdString();
  EXPECT_TRUE(std::filesystem::is_symlink(link.toStdString()));
  EXPECT_NE(readAll(dir.filePath("real.svg").toStdString()).find("<svg"), std::string::npos);
}

TEST(ImageExport, FifoReceivesThePng) {
  QTemporaryDir dir;
  const QString fifo = dir.filePath("stream.png");
  ASSERT_EQ(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
  auto reader = std::async(std::launch::async, [&] { return readAll(fifo.toStdString()); });
  QString error;
  ASSERT_TRUE(saveImage(fifo, QSize(200, 100), paintSomething, "t", &error)) << error.toStdString();
  const std::string bytes = reader.get();
  ASSERT_GT(bytes.size(), 8u);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
  struct stat st {};
  ASSERT_EQ(::lstat(QFile::encodeName(fifo).constData(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(ImageExport, FolderIsRefusedWithAMessage) {
  QTemporaryDir dir;
  QDir(dir.path()).mkdir("out.png");
  QString error;
  EXPECT_FALSE(saveImage(dir.filePath("out.png"), QSize(10, 10), paintSomething, "t", &error));
  EXPECT_TRUE(error.contains("folder")) << error.toStdString();
}

}  // namespace
}  // namespace pipescope::ui
